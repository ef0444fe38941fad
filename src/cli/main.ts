#!/usr/bin/env node
/**
 * `tollgate`: operate agent runs from a terminal. See `tollgate --help` and
 * docs/cli.md.
 */
import { runCli } from './run-cli.js';

const code = await runCli(process.argv.slice(2));
// Exit explicitly: a lingering handle (a connection being closed) must not keep a finished
// command alive. Flush first, since stdout and stderr may be asynchronous pipes.
await Promise.all(
  [process.stdout, process.stderr].map(
    (stream) => new Promise<void>((resolve) => stream.write('', () => resolve())),
  ),
);
process.exit(code);
