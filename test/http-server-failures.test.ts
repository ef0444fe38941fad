import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { AgentStream } from '../src/stream/agent-stream.js';
import type { StreamItem } from '../src/stream/stream-items.js';
import { createTool, Tollgate, type Chunk } from '../src/index.js';
import { SseParser, type SseEvent } from '../src/http-client/sse-parser.js';
import { createTollgateServer, loadAuthConfig } from '../src/server/index.js';
import { sseResponse } from '../src/server/sse.js';
import { hostAgents, testAgent } from './support/harness.js';

const ALICE = 'alice-token-0123456789';

describe('HTTP API failures', () => {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const waitAWhile = createTool({
    id: 'wait-a-while',
    inputSchema: z.object({}),
    execute: async () => {
      await released;
      return { waited: true };
    },
  });
  const { agent } = testAgent('http-agent', [waitAWhile], (prompt) =>
    prompt.at(-1)?.role === 'tool'
      ? { text: 'Waited.' }
      : { toolCalls: [{ toolName: 'wait-a-while', args: {} }] },
  );
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'http-failures');
  });
  afterAll(async () => {
    release();
    await tollgate.shutdown();
  });

  it('sends an event: error when the stream fails after the headers, without internals', async () => {
    const client = new Tollgate({ temporal: { taskQueue: tollgate.taskQueue } });
    const logged: unknown[] = [];
    const second = await createTollgateServer({
      tollgate: client,
      auth: { tokens: [{ token: ALICE, id: 'alice' }] },
      logError: (error) => logged.push(error),
    }).listen({ port: 0 });
    try {
      const response = await fetch(`${second.url}/api/agents/http-agent/stream`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: 'wait for it' }),
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      const parser = new SseParser();
      const events: SseEvent[] = [];
      while (!events.some((e) => e.data.includes('"tool-call"'))) {
        const { value } = await reader.read();
        events.push(...parser.push(new TextDecoder().decode(value)));
      }
      await client.shutdown();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        events.push(...parser.push(new TextDecoder().decode(read.value)));
      }
      const failure = events.at(-1)!;
      expect(failure.type).toBe('error');
      expect(JSON.parse(failure.data)).toEqual({
        error: { code: 'INTERNAL', message: 'Internal error' },
      });
      // The real cause (the runtime shut down mid-read) is logged on the server only.
      expect(logged).toHaveLength(1);
    } finally {
      release();
      await second.close();
      await client.shutdown();
    }
  });

  it('answers 503 TEMPORAL_UNAVAILABLE, health included, when Temporal is away', async () => {
    const away = new Tollgate({ temporal: { address: '127.0.0.1:1' } });
    const logged: unknown[] = [];
    const app = createTollgateServer({
      tollgate: away,
      auth: { tokens: [{ token: ALICE, id: 'alice' }] },
      logError: (error) => logged.push(error),
    }).app;
    try {
      const health = await app.request('/api/health');
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ ok: false, temporal: false });
      const failed = await app.request('/api/agents/http-agent/stream', {
        method: 'POST',
        headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: 'hello' }),
      });
      expect(failed.status).toBe(503);
      const body = (await failed.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('TEMPORAL_UNAVAILABLE');
      // The server's address stays on the server.
      expect(body.error.message).not.toContain('127.0.0.1');
      expect(logged).toHaveLength(0);
    } finally {
      await away.shutdown();
    }
  });
});

describe('an SSE response', () => {
  it('stops reading the run as soon as the client disconnects', async () => {
    let stopped = false;
    // Runs until the test ends, like a run that keeps producing chunks.
    async function* endless(): AsyncGenerator<StreamItem> {
      for (let step = 0; !stopped; step++) {
        const chunk: Chunk = {
          type: 'text-delta',
          runId: 'r',
          from: 'AGENT',
          payload: { text: `${step}` },
        };
        yield { chunk, offset: 5 + step };
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    let reads = 0;
    const stream = new AgentStream('r', 5, endless(), async () => undefined);
    const chunks = stream.items;
    Object.defineProperty(stream, 'items', {
      get: (): AsyncIterable<StreamItem> => ({
        [Symbol.asyncIterator]: () => {
          const inner = chunks[Symbol.asyncIterator]();
          return {
            next: () => {
              reads++;
              return inner.next();
            },
          };
        },
      }),
    });
    const logged: unknown[] = [];
    const app = new Hono().get('/s', (c) => sseResponse(c, stream, (e) => logged.push(e)));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const listening = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () =>
        resolve(listening),
      );
    });
    try {
      const address = server.address() as { port: number };
      const aborter = new AbortController();
      const response = await fetch(`http://127.0.0.1:${address.port}/s`, {
        signal: aborter.signal,
      });
      const first = await response.body!.getReader().read();
      expect(new TextDecoder().decode(first.value)).toMatch(/^id: 5\ndata: /);
      aborter.abort();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const afterAbort = reads;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(reads).toBe(afterAbort);
      expect(logged).toEqual([]);
    } finally {
      stopped = true;
      server.close();
    }
  });
});

describe('loadAuthConfig', () => {
  const tokens = [
    { token: 't-1', id: 'alice', roles: ['ops'] },
    { token: 't-2', id: 'bob' },
  ];

  it('reads TOLLGATE_TOKENS, a file named by TOLLGATE_TOKENS_FILE, or a given file', async () => {
    expect(loadAuthConfig({ env: { TOLLGATE_TOKENS: JSON.stringify(tokens) } })).toEqual({
      tokens,
    });
    const dir = await mkdtemp(join(tmpdir(), 'tollgate-tokens-'));
    const file = join(dir, 'tokens.json');
    await writeFile(file, JSON.stringify({ tokens }));
    // Read from a file, the config names it: the server reads it again when it changes.
    expect(loadAuthConfig({ env: { TOLLGATE_TOKENS_FILE: file } })).toEqual({
      tokens,
      tokensFile: file,
    });
    expect(loadAuthConfig({ file, env: { TOLLGATE_TOKENS: '[]' } })).toEqual({
      tokens,
      tokensFile: file,
    });
  });

  it('names the problem of a bad or missing config in an INVALID_OPTIONS error', () => {
    const attempt = (env: NodeJS.ProcessEnv) => () => loadAuthConfig({ env });
    expect(attempt({})).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(attempt({})).toThrow(/TOLLGATE_TOKENS/);
    expect(attempt({ TOLLGATE_TOKENS: '[{' })).toThrow(/not valid JSON/);
    expect(attempt({ TOLLGATE_TOKENS: '[]' })).toThrow(/TOLLGATE_TOKENS is invalid/);
    expect(attempt({ TOLLGATE_TOKENS: '[{"token":"x"}]' })).toThrow(/tokens\.0\.id/);
    expect(attempt({ TOLLGATE_TOKENS: '[{"token":"x","id":"a"},{"token":"x","id":"b"}]' })).toThrow(
      /one token twice/,
    );
    expect(attempt({ TOLLGATE_TOKENS_FILE: '/nonexistent/tokens.json' })).toThrow(
      /Cannot read the tokens file/,
    );
    expect(() => createTollgateServer({ tollgate: new Tollgate(), auth: { tokens: [] } })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
  });
});
