/**
 * The peer of the side-by-side benchmark, Mastra, installed with npm into a scratch folder
 * (`.bench-peer/` at the project root, git-ignored) so it never enters the project's own
 * dependencies. A second run reuses the folder when the pinned versions are already there.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { progress } from '../stats.js';

export const PEER_PACKAGES = {
  '@mastra/core': '1.71.0',
  '@mastra/libsql': '1.23.1',
  // The schemas the peer's tools are declared with; Mastra takes zod 4.
  zod: '4.6.7',
} as const;

/** Compiled to dist/bench/peer/, three levels below the project root. */
const DEFAULT_DIR = fileURLToPath(new URL('../../../.bench-peer/', import.meta.url));

export interface PeerModules {
  dir: string;
  /** `import()`-able URL of a file inside an installed package. */
  url(pkg: keyof typeof PEER_PACKAGES, file: string): string;
}

/**
 * Installs the pinned peer packages into `dir` (default `.bench-peer/`) unless they are there.
 *
 * @throws Error naming npm's output when the install fails (no network, no npm...).
 */
export async function installPeer(
  dir = process.env.BENCH_PEER_DIR ?? DEFAULT_DIR,
): Promise<PeerModules> {
  await mkdir(dir, { recursive: true });
  const installed = await Promise.all(
    Object.entries(PEER_PACKAGES).map(async ([name, version]) => {
      const file = join(dir, 'node_modules', name, 'package.json');
      const found = await readFile(file, 'utf8').then(
        (text) => (JSON.parse(text) as { version?: string }).version,
        () => undefined,
      );
      return found === version;
    }),
  );
  if (installed.some((ok) => !ok)) {
    const specs = Object.entries(PEER_PACKAGES).map(([name, version]) => `${name}@${version}`);
    progress(`peer: npm install ${specs.join(' ')} into ${dir}`);
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'tollgate-bench-peer', private: true, type: 'module' }, null, 2),
    );
    try {
      await promisify(execFile)(
        'npm',
        ['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs],
        { cwd: dir, maxBuffer: 16 * 1024 * 1024, timeout: 15 * 60_000 },
      );
    } catch (error) {
      const { stderr, message } = error as { stderr?: string; message: string };
      throw new Error(
        `could not npm install the peer (${specs.join(' ')}) in ${dir}: ${stderr?.trim() || message}`,
      );
    }
  }
  return {
    dir,
    url: (pkg, file) => pathToFileURL(join(dir, 'node_modules', pkg, file)).href,
  };
}
