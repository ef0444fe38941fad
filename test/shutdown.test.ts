import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { runScript } from './support/cli.js';

const SCRIPT = fileURLToPath(new URL('./support/shutdown-during-retry.js', import.meta.url));
const AFTER_CLOSE = fileURLToPath(new URL('./support/call-after-close.js', import.meta.url));

describe('shutdown while the connection to Temporal is broken', () => {
  it('ends calls that wait to retry, and the process lives on', async () => {
    const { code, stdout, stderr } = await runScript(SCRIPT);
    const output = stdout + stderr;
    expect(output).not.toContain('Channel has been shut down');
    expect(output).toContain('PENDING TollgateError SHUT_DOWN');
    expect(output).toContain('CLEAN');
    expect(code).toBe(0);
  }, 60_000);

  it('ends a call started after the connection closed with CANCELLED, and the process lives on', async () => {
    const { code, stdout, stderr } = await runScript(AFTER_CLOSE);
    expect(stdout + stderr).not.toContain('UNCAUGHT');
    // gRPC status 1: CANCELLED.
    expect(stdout).toContain('REJECTED 1');
    expect(stdout).toContain('ALIVE');
    expect(code).toBe(0);
  }, 60_000);
});
