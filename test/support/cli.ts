import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The compiled CLI entry. */
export const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** This process's environment with `changes` applied; `undefined` removes a variable. */
export function envWith(changes: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Runs a compiled script with this Node to its end, collecting its output. */
export function runScript(
  script: string,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [script, ...args], {
    env: envWith(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the compiled CLI to its end. */
export function cli(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  return runScript(CLI, args, env);
}

/**
 * A module for `tollgate worker --agents` / `dev --agents`: exports `agents`, each an Agent whose
 * scripted model always answers `text`. Returns the file's path.
 */
export async function answeringAgentsModule(
  agents: Record<string, { id: string; text: string }>,
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-agents-module-'));
  const file = join(dir, 'agents.mjs');
  const dist = (path: string) => new URL(path, import.meta.url).href;
  const entries = Object.entries(agents).map(
    ([key, { id, text }]) =>
      `  ${JSON.stringify(key)}: new Agent({ id: ${JSON.stringify(id)}, model: scriptedModel(() => ({ text: ${JSON.stringify(text)} })) }),`,
  );
  await writeFile(
    file,
    `import { Agent } from '${dist('../../src/index.js')}';
import { scriptedModel } from '${dist('../../src/testing/index.js')}';
export const agents = {
${entries.join('\n')}
};
`,
  );
  return file;
}
