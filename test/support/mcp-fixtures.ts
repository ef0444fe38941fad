/**
 * What the MCP tests share: where the test servers live, how to read what they executed, and the
 * scripted model that calls their tools.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TurnPicker } from '../../src/testing/index.js';
import { lastToolOutputs, outputsText } from './harness.js';
import type { CallLine } from './mcp-test-server.js';

export const STDIO_SERVER = fileURLToPath(new URL('./mcp-stdio-server.js', import.meta.url));
export const HTTP_SERVER = fileURLToPath(new URL('./mcp-http-server.js', import.meta.url));

/** A fresh state directory for a test server (its calls file starts empty). */
export async function stateDir(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `tollgate-mcp-${name}-`));
  await writeFile(join(dir, 'calls.jsonl'), '');
  return dir;
}

/** The stdio server of `dir`, as `mcpTools()` options. */
export function stdioServer(dir: string) {
  return {
    command: process.execPath,
    args: [STDIO_SERVER],
    env: { MCP_STATE_DIR: dir },
  };
}

/** Every line the server(s) of `dir` recorded, optionally of one tool. */
export async function serverCalls(dir: string, tool?: string): Promise<CallLine[]> {
  const text = await readFile(join(dir, 'calls.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CallLine)
    .filter((line) => tool === undefined || line.tool === tool);
}

/**
 * Calls the tool the prompt names (`read`, `delete`, `transfer <n>`, `crash`, `broken`, `huge`,
 * `hang`, `chatty`, `connect`, `pay`, `subscribe`), then reports the tool's output as its text.
 */
export const callByPrompt: TurnPicker = (prompt) => {
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: outputsText(outputs) };
  const said = JSON.stringify(prompt.at(-1)?.content ?? '');
  const amount = /transfer (\d+)/.exec(said)?.[1];
  if (amount) return { toolCalls: [{ toolName: 'transfer', args: { amount: Number(amount) } }] };
  for (const [word, toolName] of [
    ['read', 'read_file'],
    ['delete', 'delete_file'],
    ['crash', 'crash'],
    ['broken', 'broken'],
    ['huge', 'huge'],
    ['hang', 'hang'],
    ['chatty', 'chatty'],
    ['connect', 'connect_account'],
    ['pay', 'pay'],
    ['subscribe', 'subscribe'],
  ] as const) {
    if (said.includes(word))
      return {
        toolCalls: [{ toolName, args: toolName.endsWith('_file') ? { path: '/tmp/a.txt' } : {} }],
      };
  }
  return { text: 'Nothing to do.' };
};
