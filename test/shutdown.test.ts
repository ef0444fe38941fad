import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const SCRIPT = fileURLToPath(new URL('./support/shutdown-during-retry.js', import.meta.url));

function runScript(): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [SCRIPT], {
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr])
    stream.on('data', (data: Buffer) => (output += data.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('shutdown while the connection to Temporal is broken', () => {
  it('ends calls that wait to retry, and the process lives on', async () => {
    const { code, output } = await runScript();
    expect(output).not.toContain('Channel has been shut down');
    expect(output).toContain('PENDING TollgateError SHUT_DOWN');
    expect(output).toContain('CLEAN');
    expect(code).toBe(0);
  }, 60_000);
});
