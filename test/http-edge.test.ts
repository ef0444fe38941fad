/**
 * The HTTP edge against a real server and Temporal: security headers, JSON-only bodies, depth and
 * id limits (the same in the SDK), date ranges, and a bounded 503 while Temporal is away.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowNotFoundError } from '@temporalio/client';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tollgate } from '../src/index.js';
import { MAX_ID_LENGTH, MAX_JSON_DEPTH } from '../src/common/limits.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { hostAgents, testAgent, uniqueId } from './support/harness.js';
import { startTcpProxy } from './support/tcp-proxy.js';

const ALICE = 'alice-token-0123456789';
const TEMPORAL = process.env.TEMPORAL_ADDRESS ?? 'localhost:7233';
const AGENT = 'edge-agent';
const auth = { tokens: [{ token: ALICE, id: 'alice' }] };

interface Answer {
  status: number;
  headers: Headers;
  json: { error?: { code: string; message: string; fields?: string[] } } & Record<string, unknown>;
}

async function send(
  url: string,
  path: string,
  init: { body?: string; contentType?: string | null; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${ALICE}`, ...init.headers };
  if (init.contentType !== null) headers['content-type'] = init.contentType ?? 'application/json';
  const method = init.body === undefined ? 'GET' : 'POST';
  const response = await fetch(url + path, { method, headers, body: init.body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : {} };
}

/** `{ a: { a: ... { a: 1 } } }`, `levels` objects deep. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level++) value = { a: value };
  return value;
}

describe('the HTTP edge', () => {
  const { agent } = testAgent(AGENT, [], () => ({ text: 'Hello there.' }));
  let tollgate: Tollgate;
  let server: ListeningServer;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'http-edge');
    const inbox = await mkdtemp(join(tmpdir(), 'tollgate-edge-inbox-'));
    await writeFile(join(inbox, 'index.html'), '<h1>Inbox</h1>');
    server = await createTollgateServer({ tollgate, auth, inbox: { root: inbox } }).listen({
      port: 0,
    });
  });
  afterAll(async () => {
    await server?.close();
    await tollgate?.shutdown();
  });

  const generate = (body: unknown, contentType?: string | null) =>
    send(server.url, `/api/agents/${AGENT}/generate`, {
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...(contentType !== undefined ? { contentType } : {}),
    });

  async function expectNoRun(runId: string): Promise<void> {
    const handle = (await tollgate.client()).workflow.getHandle(runId);
    await expect(handle.describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  }

  it('sends nosniff everywhere, no-store on API answers, and a strict CSP with the inbox', async () => {
    const page = await fetch(`${server.url}/inbox`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');

    const answers = [
      await send(server.url, '/api/approvals'),
      await send(server.url, '/api/health'),
      await send(server.url, '/api/approvals', { headers: { authorization: 'Bearer wrong' } }),
      await send(server.url, '/api/nothing-here'),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 401, 404]);
    for (const answer of answers) {
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('sends no CORS headers: a page of another origin cannot read the API', async () => {
    const origin = { origin: 'https://evil.example' };
    const read = await send(server.url, '/api/approvals', { headers: origin });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${server.url}/api/agents/${AGENT}/generate`, {
      method: 'OPTIONS',
      headers: { ...origin, 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('refuses text/plain, form and undeclared bodies with 415 before reading them', async () => {
    const runId = uniqueId('edge-415');
    const body = JSON.stringify({ messages: 'hi', options: { runId } });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', null]) {
      const answer = await generate(body, type);
      expect([type, answer.status, answer.json.error?.code]).toEqual([
        type,
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ]);
    }
    await expectNoRun(runId);
    const withCharset = await generate(body, 'application/json; charset=utf-8');
    expect(withCharset.status).toBe(200);
  });

  it(`refuses a body nested deeper than ${MAX_JSON_DEPTH} levels with 400 naming the limit`, async () => {
    const runId = uniqueId('edge-deep');
    const deep = await generate({
      messages: 'hi',
      options: { runId, requestContext: nested(2000) },
    });
    expect(deep.status).toBe(400);
    expect(deep.json.error).toMatchObject({ code: 'BAD_REQUEST' });
    expect(deep.json.error?.message).toContain(String(MAX_JSON_DEPTH));
    await expectNoRun(runId);
    const shallow = await generate({
      messages: 'hi',
      options: { runId, requestContext: { ok: nested(MAX_JSON_DEPTH - 3) } as never },
    });
    expect(shallow.status).toBe(200);
  });

  it('refuses over-long ids and ids with control characters with 400 naming the field', async () => {
    const runId = uniqueId('edge-ids');
    const cases: Array<[unknown, string]> = [
      [{ thread: 't'.repeat(5000), resource: 'r' }, 'options.memory.thread'],
      [{ thread: 'a\u0000b', resource: 'r' }, 'options.memory.thread'],
      [{ thread: 't', resource: 'line\nbreak' }, 'options.memory.resource'],
    ];
    for (const [memory, field] of cases) {
      const answer = await generate({ messages: 'hi', options: { runId, memory } });
      expect([field, answer.status, answer.json.error?.fields]).toEqual([field, 400, [field]]);
    }
    const longCall = await send(server.url, `/api/agents/${AGENT}/approve-tool-call`, {
      body: JSON.stringify({ runId, toolCallId: 'c'.repeat(MAX_ID_LENGTH + 1) }),
    });
    expect(longCall.status).toBe(400);
    expect(longCall.json.error?.message).toContain(String(MAX_ID_LENGTH));
    const longAgent = await send(server.url, `/api/agents/${'x'.repeat(5000)}/suspended-runs`);
    expect(longAgent.json.error?.code).toBe('INVALID_OPTIONS');
    await expectNoRun(runId);
  });

  it('answers hostile ids on every run route with a typed 4xx, never a 500, and changes nothing', async () => {
    const client = await tollgate.client();
    // A running workflow that is not an agent run (no worker polls its queue).
    const foreign = await client.workflow.start('notAnAgentRun', {
      taskQueue: uniqueId('no-worker-queue'),
      workflowId: uniqueId('foreign'),
    });
    const hostile: unknown[] = [
      'r'.repeat(100_000),
      'a\u0000b',
      { id: 'x' },
      ['x'],
      42,
      null,
      '',
      foreign.workflowId,
      "' OR ExecutionStatus = 'Running",
      '../../api/health',
    ];
    const runBody = (runId: unknown) => ({ runId, toolCallId: 'call-1' });
    const bodies: Array<[string, (value: unknown) => unknown]> = [
      ['approve-tool-call', runBody],
      ['decline-tool-call', runBody],
      ['approve-tool-call-generate', runBody],
      ['decline-tool-call-generate', runBody],
      ['resume-stream', (runId) => ({ runId, resumeData: {} })],
      ['resume-generate', (runId) => ({ runId, resumeData: {} })],
      ['observe', (runId) => ({ runId })],
      ['send-tool-approval', (threadId) => ({ threadId, resourceId: 'r', approved: true })],
    ];
    const answers: Array<[string, number, string | undefined]> = [];
    const record = (what: string, answer: Answer) =>
      answers.push([what, answer.status, answer.json.error?.code]);
    for (const value of hostile) {
      const what = JSON.stringify(value)?.slice(0, 30) ?? String(value);
      for (const [route, body] of bodies) {
        const path = `/api/agents/${AGENT}/${route}`;
        record(
          `${route} ${what}`,
          await send(server.url, path, { body: JSON.stringify(body(value)) }),
        );
      }
      const decision = { agentId: AGENT, runId: value, toolCallId: 'c', action: 'approve' };
      const batch = await send(server.url, '/api/decisions', {
        body: JSON.stringify({ decisions: [decision] }),
      });
      const results = (batch.json.results ?? []) as Array<{ error?: { code: string } }>;
      // A batch answers 200 with one typed result per decision.
      if (batch.status === 200) answers.push([`decision ${what}`, 400, results[0]?.error?.code]);
      else record(`decisions ${what}`, batch);
      if (typeof value !== 'string' || value.length > 8000) continue;
      const query = encodeURIComponent(value);
      for (const route of ['audit', 'pending-tool-calls']) {
        const path = `/api/agents/${AGENT}/${route}?runId=${query}`;
        record(`${route} ${what}`, await send(server.url, path));
      }
      // An agent id that is merely unknown lists no runs.
      const listing = await send(server.url, `/api/agents/${query}/suspended-runs`);
      if (listing.status === 200) expect([what, listing.json.runs]).toEqual([what, []]);
      else record(`agent ${what}`, listing);
    }
    record(
      'audit runId twice',
      await send(server.url, `/api/agents/${AGENT}/audit?runId=a&runId=b`),
    );
    record(
      'agent 100 KB',
      await send(server.url, `/api/agents/${'x'.repeat(100_000)}/suspended-runs`),
    );
    expect(answers.length).toBeGreaterThan(100);
    const untyped = answers.filter(
      ([, status, code]) => status < 400 || status >= 500 || (status !== 431 && !code),
    );
    expect(untyped).toEqual([]);
    expect(answers.filter(([what]) => what.includes(foreign.workflowId.slice(0, 20)))).toEqual(
      expect.arrayContaining([expect.arrayContaining([404, 'RUN_NOT_FOUND'])]),
    );
    const { historyLength } = await foreign.describe();
    expect(historyLength).toBe(2);
    await foreign.terminate('test done');
  }, 120_000);

  it('applies the same id limits in the SDK, with INVALID_OPTIONS naming the field', async () => {
    const runId = uniqueId('edge-sdk-ids');
    const ops = tollgate.getAgent(AGENT);
    await expect(
      ops.generate('hi', { runId, memory: { thread: 'a\u0000b', resource: 'r' } }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('memory.thread'),
    });
    await expect(
      ops.generate('hi', { runId, memory: { thread: 't'.repeat(5000), resource: 'r' } }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('256') });
    await expect(
      ops.approveToolCall({ runId, toolCallId: 'c'.repeat(MAX_ID_LENGTH + 1) }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('toolCallId'),
    });
    await expect(
      ops.generate('hi', { runId, approval: { approvers: ['alice', 'bob\u0000'] } }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('approval.approvers[1]'),
    });
    await expect(ops.listSuspendedRuns({ threadId: 'a\u0000' })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
    expect(() => tollgate.getAgent('x'.repeat(5000))).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    await expectNoRun(runId);
  });

  it('refuses dates Temporal cannot compare with 400 (HTTP) and INVALID_OPTIONS (SDK)', async () => {
    for (const query of ['toDate=-271821-04-20T00:00:00Z', 'fromDate=%2B275760-09-13T00:00:00Z']) {
      const answer = await send(server.url, `/api/agents/${AGENT}/suspended-runs?${query}`);
      expect([query, answer.status, answer.json.error?.code]).toEqual([query, 400, 'BAD_REQUEST']);
    }
    await expect(
      tollgate.getAgent(AGENT).listSuspendedRuns({ toDate: new Date(-8.64e15) }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('toDate'),
    });
    const fine = await send(server.url, `/api/agents/${AGENT}/suspended-runs?toDate=2999-01-01`);
    expect(fine.status).toBe(200);
  });
});

describe('the HTTP edge while Temporal is away', () => {
  it('answers generate and the approvals listing with 503 TEMPORAL_UNAVAILABLE, not 500', async () => {
    const proxy = await startTcpProxy(TEMPORAL);
    const client = new Tollgate({ temporal: { address: proxy.address, taskQueue: 'edge-none' } });
    const logged: unknown[] = [];
    const server = await createTollgateServer({
      tollgate: client,
      auth,
      outageTimeoutMs: 1000,
      logError: (error) => logged.push(error),
    }).listen({ port: 0 });
    try {
      // Connected first: the outage begins after the client has its channel.
      expect((await send(server.url, '/api/approvals?agentId=edge-none')).status).toBe(200);
      await proxy.close();
      const runId = uniqueId('edge-outage');
      const generated = await send(server.url, '/api/agents/edge-none/generate', {
        body: JSON.stringify({ messages: 'hi', options: { runId } }),
      });
      expect([generated.status, generated.json.error?.code]).toEqual([503, 'TEMPORAL_UNAVAILABLE']);
      const listed = await send(server.url, '/api/approvals');
      expect([listed.status, listed.json.error?.code]).toEqual([503, 'TEMPORAL_UNAVAILABLE']);
      expect(logged).toEqual([]);
      await proxy.listen();
      const direct = await client.client();
      await expect(direct.workflow.getHandle(runId).describe()).rejects.toBeInstanceOf(
        WorkflowNotFoundError,
      );
    } finally {
      await server.close();
      await client.shutdown();
      await proxy.close();
    }
  }, 30_000);
});
