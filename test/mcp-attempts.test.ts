/**
 * An MCP call that reached the server is sent once (issue 25.3): a result too large for Temporal,
 * a server that never answers, and one that sends progress without end each end the call at once
 * or at its timeout, as one attempt, and the run goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tollgate } from '../src/index.js';
import { closeMcpConnections, mcpTools } from '../src/mcp/index.js';
import { chunksOf, hostAgents, settlesWithin, testAgent } from './support/harness.js';
import { callByPrompt, serverCalls, stateDir, stdioServer } from './support/mcp-fixtures.js';
import { activityAttempts } from './support/run-failure.js';

describe('MCP calls that may have reached the server', () => {
  let tollgate: Tollgate;
  let dir: string;

  beforeAll(async () => {
    dir = await stateDir('attempts');
    const tools = await mcpTools({
      name: 'files',
      ...stdioServer(dir),
      include: ['huge', 'hang', 'chatty'],
      timeoutMs: 4000,
      // A 5 MB answer over stdio can take several seconds on a loaded machine; its test is about
      // the size, not the timeout, so the clock must not end it first.
      tools: { huge: { timeoutMs: 60_000 } },
    });
    tollgate = await hostAgents(
      [testAgent('mcp-attempts', Object.values(tools), callByPrompt).agent],
      'mcp-attempts',
    );
  });
  afterAll(async () => {
    await tollgate.shutdown();
    await closeMcpConnections();
  });

  /** Runs the prompt's tool; the run must end within `ms` and after one attempt (the old retries took
   * 3 s to 94 s, attempt after attempt). */
  async function callOnce(prompt: string, ms: number) {
    const stream = await tollgate.getAgent('mcp-attempts').stream(prompt);
    const chunks = chunksOf(stream);
    expect(await settlesWithin(chunks, ms)).toBe(true);
    expect(await stream.finishReason).toBe('stop');
    expect(await activityAttempts(tollgate, stream.runId, 'executeTool')).toEqual([1]);
    return (await chunks).find((chunk) => chunk.type === 'tool-error')?.payload;
  }

  it('fails a 5 MB result at once as a tool-error after calling the server once', async () => {
    expect(await callOnce('huge', 60_000)).toMatchObject({
      toolName: 'huge',
      error: expect.stringMatching(/^Tool "huge" returned \d{7} bytes of JSON, over the limit/),
    });
    expect(await serverCalls(dir, 'huge')).toHaveLength(1);
  });

  it('ends a call the server never answers at its timeout, once', async () => {
    expect(await callOnce('hang', 15_000)).toMatchObject({
      toolName: 'hang',
      error: expect.stringContaining('of MCP server "files" did not answer within 4000 ms'),
    });
    expect(await serverCalls(dir, 'hang')).toHaveLength(1);
  });

  it('does not let endless progress notifications keep a call alive past its timeout', async () => {
    expect(await callOnce('chatty', 15_000)).toMatchObject({
      toolName: 'chatty',
      error: expect.stringContaining('did not answer within 4000 ms'),
    });
    expect(await serverCalls(dir, 'chatty')).toHaveLength(1);
  });
});
