/**
 * Model-provider HTTP errors through the real `@ai-sdk/openai` provider and a local
 * OpenAI-compatible server: a rejected request (401) fails the run at once; 429 and 503 are
 * retried, after the provider's `retry-after` when it sends one.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOpenAI } from '@ai-sdk/openai';
import { Agent, type Tollgate } from '../src/index.js';
import { chunksOf, hostAgents } from './support/harness.js';
import {
  startOpenAICompatibleServer,
  type FakeOpenAIServer,
  type ScriptedReply,
} from './support/openai-compatible-server.js';
import { activityAttempts, runFailure } from './support/run-failure.js';

const servers: Record<string, FakeOpenAIServer> = {};
const scripts: Record<string, ScriptedReply[]> = {
  rejected: [{ error: { status: 401, message: 'Incorrect API key provided: sk-te****ey.' } }],
  limited: [
    { error: { status: 429, message: 'Rate limit reached.', headers: { 'retry-after': '4' } } },
    { text: 'After the wait.' },
  ],
  down: [{ error: { status: 503, message: 'The server is overloaded.' } }, { text: 'Back up.' }],
};
let tollgate: Tollgate;

beforeAll(async () => {
  const agents: Agent[] = [];
  for (const [name, script] of Object.entries(scripts)) {
    const server = await startOpenAICompatibleServer(script);
    servers[name] = server;
    const provider = createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key' });
    agents.push(new Agent({ id: `provider-${name}`, model: provider.chat('gpt-test') }));
  }
  tollgate = await hostAgents(agents, 'provider-errors');
});
afterAll(async () => {
  await tollgate?.shutdown();
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

describe('model provider errors', () => {
  it('fails the run at once on 401 with MODEL_REQUEST_REJECTED naming the status and the provider message', async () => {
    const stream = await tollgate.getAgent('provider-rejected').stream('hello');
    const chunks = await chunksOf(stream);
    expect(await stream.finishReason).toBe('error');
    const error = chunks.find((chunk) => chunk.type === 'error');
    expect(error?.payload).toMatchObject({ error: expect.stringContaining('HTTP 401') });
    const failure = await runFailure(tollgate, stream.runId);
    expect(failure.type).toBe('tollgate.MODEL_REQUEST_REJECTED');
    expect(failure.message).toContain('Incorrect API key provided');
    expect(failure.message).not.toContain('test-key');
    expect(servers.rejected!.requests).toHaveLength(1);
    expect(await activityAttempts(tollgate, stream.runId, 'modelStep')).toEqual([1]);
  });

  it("retries a 429 after the provider's retry-after, then finishes", async () => {
    const output = await tollgate.getAgent('provider-limited').generate('hello');
    expect(output.finishReason).toBe('stop');
    expect(output.text).toBe('After the wait.');
    const server = servers.limited!;
    expect(server.requests).toHaveLength(2);
    // The activity's own backoff would retry after 2 s; the provider asked for 4 s.
    expect(server.arrivals[1]! - server.arrivals[0]!).toBeGreaterThanOrEqual(4000);
    expect(await activityAttempts(tollgate, output.runId, 'modelStep')).toEqual([2]);
  });

  it('retries a 503, then finishes', async () => {
    const output = await tollgate.getAgent('provider-down').generate('hello');
    expect(output.text).toBe('Back up.');
    expect(servers.down!.requests).toHaveLength(2);
    expect(await activityAttempts(tollgate, output.runId, 'modelStep')).toEqual([2]);
  });
});
