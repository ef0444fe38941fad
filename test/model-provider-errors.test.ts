/**
 * Model-provider HTTP errors through the real `@ai-sdk/openai` provider and a local
 * OpenAI-compatible server: a rejected request (401) fails the run at once; 429 and 503 are
 * retried, after the provider's `retry-after` when it sends one.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError } from 'ai';
import { modelCallFailure, retryAfterMs } from '../src/activities/model-errors.js';
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

describe('modelCallFailure (pure)', () => {
  const apiError = (statusCode: number, responseHeaders: Record<string, string> = {}) =>
    new APICallError({
      message: 'provider says no',
      url: 'https://example.test/v1/chat/completions?key=secret',
      requestBodyValues: { messages: ['the prompt'] },
      statusCode,
      responseHeaders,
    });

  it.each([400, 401, 403, 404, 422])(
    'fails %i at once, without the url or the prompt',
    (status) => {
      const failure = modelCallFailure(apiError(status));
      expect(failure).toMatchObject({
        type: 'tollgate.MODEL_REQUEST_REJECTED',
        nonRetryable: true,
      });
      expect(failure?.message).toContain(`HTTP ${status} (provider says no)`);
      expect(failure?.message).not.toMatch(/secret|the prompt/);
    },
  );

  it.each([408, 409, 429, 500, 502, 503])('retries %i', (status) => {
    expect(modelCallFailure(apiError(status))).toMatchObject({
      type: 'tollgate.MODEL_UNAVAILABLE',
      nonRetryable: false,
      nextRetryDelay: undefined,
    });
  });

  it('honours retry-after-ms, then retry-after in seconds or as a date, up to 5 minutes', () => {
    expect(modelCallFailure(apiError(429, { 'retry-after-ms': '1500' }))?.nextRetryDelay).toBe(
      1500,
    );
    expect(retryAfterMs({ 'Retry-After': '3' })).toBe(3000);
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    expect(retryAfterMs({ 'retry-after': inTenSeconds })).toBeGreaterThan(8000);
    expect(retryAfterMs({ 'retry-after': '3600' })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
  });

  it('leaves errors without an HTTP status to the retry policy', () => {
    expect(modelCallFailure(new Error('socket hang up'))).toBeUndefined();
  });
});
