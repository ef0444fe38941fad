/**
 * Issue 24.5: a client tells outcomes apart by a stable `code`, never by a message's text: in the
 * SDK's chunks, over SSE, and on the chat bridge (as the AI SDK carries tool metadata).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { UIMessage } from 'ai';
import { z } from 'zod';
import { createTool, type Tollgate } from '../src/index.js';
import type { ListeningServer } from '../src/server/index.js';
import type { TollgateClient } from '../src/http-client/index.js';
import { hostAgents, testAgent, uniqueId } from './support/harness.js';
import { serveOverHttp } from './support/served.js';
import { sseChunks } from './support/ui-sse.js';

const TOKEN = 'codes-token-0123456789abcdef';

describe('codes on tool-error and tool-result chunks', () => {
  let thrown = 0;
  const fails = createTool({
    id: 'fails',
    description: 'Always throws.',
    inputSchema: z.object({ id: z.string() }),
    retry: { maximumAttempts: 1 },
    execute: async () => {
      thrown++;
      throw new Error('the disk is full');
    },
  });
  const { agent } = testAgent('codes-agent', [fails], (prompt) =>
    prompt.at(-1)?.role === 'tool'
      ? { text: 'Reported.' }
      : {
          toolCalls: [
            { toolName: 'fails', args: { id: 'a' }, toolCallId: 'call-throws' },
            { toolName: 'vanished', args: {}, toolCallId: 'call-unknown' },
            { toolName: 'fails', args: { id: 7 }, toolCallId: 'call-bad-args' },
          ],
        },
  );
  const expected = [
    { toolCallId: 'call-throws', code: 'TOOL_FAILED' },
    { toolCallId: 'call-unknown', code: 'TOOL_NOT_FOUND' },
    { toolCallId: 'call-bad-args', code: 'INVALID_TOOL_INPUT' },
  ];
  let tollgate: Tollgate;
  let server: ListeningServer;
  let remote: TollgateClient;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'codes');
    ({ server, remote } = await serveOverHttp(tollgate, TOKEN));
  });
  afterAll(async () => {
    await server?.close();
    await tollgate?.shutdown();
  });

  function codesOf(results: Array<{ toolCallId: string; code?: string }>) {
    return results
      .map(({ toolCallId, code }) => ({ toolCallId, code }))
      .sort((a, b) => a.toolCallId.localeCompare(b.toolCallId));
  }
  const sorted = [...expected].sort((a, b) => a.toolCallId.localeCompare(b.toolCallId));

  it('the SDK’s tool results carry the code of each failure', async () => {
    const before = thrown;
    const output = await tollgate.getAgent('codes-agent').generate('Try them.');
    expect(output.finishReason).toBe('stop');
    expect(codesOf(output.toolResults as Array<{ toolCallId: string }>)).toEqual(sorted);
    expect(thrown - before).toBe(1);
  });

  it('SSE carries the same codes', async () => {
    const output = await remote.getAgent('codes-agent').generate('Try them.');
    expect(codesOf(output.toolResults as Array<{ toolCallId: string }>)).toEqual(sorted);
  });

  it('the chat bridge carries them as providerMetadata.tollgate.code of tool-output-error', async () => {
    const user: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Try.' }] };
    const answer = await fetch(`${server.url}/api/agents/codes-agent/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: uniqueId('chat'), messages: [user] }),
    });
    expect(answer.status).toBe(200);
    const errors = sseChunks(await answer.text()).filter((c) => c.type === 'tool-output-error');
    const codes = errors.map((chunk) => ({
      toolCallId: chunk.toolCallId as string,
      code: (chunk.providerMetadata as { tollgate?: { code?: string } } | undefined)?.tollgate
        ?.code,
    }));
    expect(codesOf(codes)).toEqual(sorted);
  });
});
