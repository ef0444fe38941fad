/**
 * Runs one command line: parse, help, dispatch, and turn every failure into the one-line error
 * and the exit code that say what happened.
 */
import { readFile } from 'node:fs/promises';
import { findCommand, parseCommandLine, wantsJson } from './args.js';
import { UsageError } from './command-input.js';
import { exitCodeOfError, EXIT, type ExitCode } from './exit-codes.js';
import { commandHelp, generalHelp, runsHelp, usageHint } from './help.js';
import { Output, type Sink } from './output.js';

/** Runs `argv` (without the node and script paths) and resolves to the exit code. */
export async function runCli(
  argv: string[],
  stdout: Sink = process.stdout,
  stderr: Sink = process.stderr,
): Promise<ExitCode> {
  const output = new Output(wantsJson(argv), stdout, stderr);
  let parsed;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    const { code, message } = await describeError(error);
    output.error(code, message, usageHint(findCommand(argv.filter((a) => !a.startsWith('-')))));
    return EXIT.usage;
  }
  if (parsed.kind === 'version') {
    stdout.write(`${await version()}\n`);
    return EXIT.ok;
  }
  if (parsed.kind === 'help') {
    const topic = parsed.topic;
    stdout.write(
      topic === undefined ? generalHelp() : topic === 'runs' ? runsHelp() : commandHelp(topic),
    );
    return EXIT.ok;
  }
  try {
    const handler = await parsed.spec.load();
    return await handler({ ...parsed, output });
  } catch (error) {
    const { code, message } = await describeError(error);
    output.error(code, message, error instanceof UsageError ? usageHint(parsed.spec) : undefined);
    return exitCodeOfError(code);
  }
}

/** The stable code and one-line message of any failure. */
async function describeError(error: unknown): Promise<{ code: string; message: string }> {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof UsageError) return { code: error.code, message };
  if (error instanceof Error && error.name === 'TollgateError' && typeof code === 'string') {
    return { code, message };
  }
  // Loaded only on failure: `--help` and usage errors need no Temporal client.
  const { isTemporalUnreachable } = await import('../temporal-client/errors.js');
  if (isTemporalUnreachable(error)) {
    return {
      code: 'TEMPORAL_UNAVAILABLE',
      message: `Temporal did not answer (${message}); check --address or TEMPORAL_ADDRESS.`,
    };
  }
  return { code: 'INTERNAL', message };
}

async function version(): Promise<string> {
  // dist/src/cli/run-cli.js → the package root.
  const pkg = JSON.parse(
    await readFile(new URL('../../../package.json', import.meta.url), 'utf8'),
  ) as { version?: string };
  return pkg.version ?? 'unknown';
}
