import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Chunk, Tollgate } from '../src/index.js';
import type { HealthResponse } from '../src/common/http-api.js';
import { SseParser, type SseEvent } from '../src/http-client/sse-parser.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import {
  eventually,
  hostAgents,
  recordingTool,
  testAgent,
  uniqueId,
  askUserTool,
  lastToolOutputs,
  outputsText,
} from './support/harness.js';

/** "delete <id>" calls the gated tool, "ask" the suspending one; anything else answers. */
const byPrompt: TurnPicker = (prompt) => {
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: `Result: ${outputsText(outputs)}` };
  const last = prompt.at(-1);
  const text = JSON.stringify(last?.content);
  const id = /delete ([\w-]+)/.exec(text)?.[1];
  if (id) return { text: 'Deleting.', toolCalls: [{ toolName: 'delete-record', args: { id } }] };
  if (text.includes('ask')) return { toolCalls: [{ toolName: 'ask-user', args: {} }] };
  return { text: 'Hello there.' };
};

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

describe('the HTTP API', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const askUser = askUserTool();
  const tools = [deleteRecord.tool, askUser];
  const { agent } = testAgent('http-agent', tools, byPrompt);
  const { agent: other } = testAgent('http-other-agent', [deleteRecord.tool], byPrompt);
  const hidden: unknown[] = [];
  let tollgate: Tollgate;
  let server: ListeningServer;

  beforeAll(async () => {
    tollgate = await hostAgents([agent, other], 'http');
    const inbox = await mkdtemp(join(tmpdir(), 'tollgate-inbox-'));
    await writeFile(join(inbox, 'index.html'), '<h1>Inbox</h1>');
    await writeFile(join(inbox, 'app.js'), 'console.log("inbox");');
    server = await createTollgateServer({
      tollgate,
      auth: {
        tokens: [
          { token: ALICE, id: 'alice', roles: ['ops'] },
          { token: BOB, id: 'bob' },
        ],
      },
      bodyLimitBytes: 64 * 1024,
      inbox: { root: inbox },
      logError: (error) => hidden.push(error),
    }).listen({ port: 0 });
  });
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
  });

  async function call(
    method: string,
    path: string,
    options: { body?: unknown; token?: string | null; raw?: string } = {},
  ): Promise<Answer> {
    const token = options.token === undefined ? ALICE : options.token;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const body =
      options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const response = await fetch(server.url + path, { method, headers, ...(body ? { body } : {}) });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  function eventsOf(text: string): SseEvent[] {
    const parser = new SseParser();
    return parser.push(text);
  }

  function chunksIn(text: string): Chunk[] {
    return eventsOf(text)
      .filter((e) => e.type === 'message')
      .map((e) => JSON.parse(e.data) as Chunk);
  }

  const post = (path: string, body: unknown, token?: string) =>
    call('POST', `/api/agents/http-agent${path}`, { body, ...(token ? { token } : {}) });
  const executionsOf = (id: string) =>
    deleteRecord.executions.filter((e) => (e.input as { id: string }).id === id);

  it('answers health without a token, with the workers polling its task queue', async () => {
    // The worker's first poll may reach Temporal a moment after startWorker() resolved.
    await eventually(async () => {
      const answer = await call('GET', '/api/health', { token: null });
      expect(answer).toMatchObject({
        status: 200,
        json: { ok: true, temporal: true, workers: { taskQueue: tollgate.taskQueue } },
      });
      expect((answer.json as HealthResponse).workers!.pollers).toBeGreaterThan(0);
    });
  });

  it('refuses requests without a token or with a bad one, with 401 and WWW-Authenticate', async () => {
    for (const token of [null, 'not-a-token', `${ALICE}x`]) {
      const answer = await call('GET', '/api/approvals', { token });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(answer.json).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    }
    const basic = await fetch(`${server.url}/api/approvals`, {
      headers: { authorization: `Basic ${ALICE}` },
    });
    expect(basic.status).toBe(401);
    const bodyOnBadToken = await post('/stream', { messages: 'delete rec-nope' }, 'wrong');
    expect(bodyOnBadToken.status).toBe(401);
    expect(executionsOf('rec-nope')).toHaveLength(0);
  });

  it('answers unknown routes with a 404 ErrorBody', async () => {
    const answer = await call('GET', '/api/nothing-here');
    expect(answer).toMatchObject({ status: 404, json: { error: { code: 'NOT_FOUND' } } });
    const wrongMethod = await call('GET', '/api/agents/http-agent/stream');
    expect(wrongMethod.status).toBe(404);
  });

  it('rejects malformed bodies and queries with 400 and the failing field paths', async () => {
    const bad = await post('/stream', {
      messages: 42,
      options: { maxSteps: 0, requireToolApproval: 7, memory: { thread: 'x' } },
    });
    expect(bad.status).toBe(400);
    const error = (bad.json as { error: { code: string; fields: string[]; message: string } })
      .error;
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.fields.sort()).toEqual(
      [
        'messages',
        'options.maxSteps',
        'options.memory.resource',
        'options.requireToolApproval',
      ].sort(),
    );
    expect(error.message).toContain('options.maxSteps');
    expect((await post('/approve-tool-call', {})).json).toMatchObject({
      error: { code: 'BAD_REQUEST', fields: ['runId'] },
    });
    expect((await post('/resume-stream', { runId: 'r' })).json).toMatchObject({
      error: { fields: ['resumeData'] },
    });
    const notJson = await call('POST', '/api/agents/http-agent/stream', { raw: '{"messages":' });
    expect(notJson).toMatchObject({ status: 400, json: { error: { code: 'BAD_REQUEST' } } });
    const query = await call(
      'GET',
      '/api/agents/http-agent/suspended-runs?perPage=abc&fromDate=soon',
    );
    expect(query).toMatchObject({
      status: 400,
      json: { error: { code: 'BAD_REQUEST', fields: ['perPage', 'fromDate'] } },
    });
    expect((await call('GET', '/api/approvals?perPage=0')).status).toBe(400);
  });

  it('refuses bodies over the limit with 413, with or without a content length', async () => {
    const big = { messages: 'x'.repeat(70 * 1024) };
    expect(await post('/stream', big)).toMatchObject({
      status: 413,
      json: { error: { code: 'PAYLOAD_TOO_LARGE' } },
    });
    const bytes = new TextEncoder().encode(JSON.stringify(big));
    const chunked = await fetch(`${server.url}/api/agents/http-agent/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(bytes);
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('streams a run as SSE with offsets as ids, then approves in the token holder name', async () => {
    const answer = await post('/stream', { messages: 'delete rec-sse' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    const runId = answer.headers.get('x-tollgate-run-id')!;
    expect(answer.headers.get('x-tollgate-start-offset')).toBe('0');
    expect(answer.text).toMatch(
      new RegExp(`^id: 0\ndata: \\{"type":"start","runId":"${runId}".*\\}\n\nid: 1\ndata: `),
    );
    // Log chunks carry their offsets; live text of this server's own worker comes as `live`
    // events, which claim no offset.
    const events = eventsOf(answer.text).filter((e) => e.type === 'message');
    expect(events.map((e) => e.id)).toEqual(events.map((_, at) => String(at)));
    const chunks = chunksIn(answer.text);
    expect(chunks.map((c) => c.type)).toEqual([
      'start',
      'step-start',
      'text-delta',
      'tool-call',
      'step-finish',
      'tool-call-approval',
      'finish',
    ]);
    expect(chunks.every((c) => c.runId === runId)).toBe(true);
    expect(executionsOf('rec-sse')).toHaveLength(0);

    const approved = await post('/approve-tool-call', {
      runId,
      reason: 'fine',
      decidedBy: { id: 'mallory', roles: ['admin'] },
    });
    expect(approved.status).toBe(200);
    expect(approved.headers.get('x-tollgate-start-offset')).toBe(String(chunks.length));
    const after = eventsOf(approved.text).filter((e) => e.type === 'message');
    expect(after.map((e) => Number(e.id))).toEqual(after.map((_, at) => chunks.length + at));
    expect(chunksIn(approved.text).at(-1)).toMatchObject({
      type: 'finish',
      payload: { finishReason: 'stop' },
    });
    expect(executionsOf('rec-sse')).toHaveLength(1);

    const history = await (await tollgate.client()).workflow.getHandle(runId).fetchHistory();
    const inputs = (history.events ?? [])
      .map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input)
      .filter((input) => input !== undefined && input !== null)
      .flatMap((input) => input.args?.payloads ?? [])
      .map((payload) => JSON.parse(Buffer.from(payload.data!).toString()) as unknown);
    expect(inputs).toEqual([
      {
        agentId: 'http-agent',
        reason: 'fine',
        decidedBy: { id: 'alice', roles: ['ops'] },
        deadline: expect.any(String),
      },
    ]);
  });

  it('declines without executing, in the name of the other token', async () => {
    const first = await post('/generate', { messages: 'delete rec-decline' });
    expect(first).toMatchObject({ status: 200, json: { finishReason: 'suspended' } });
    const { runId } = first.json as { runId: string };
    const declined = await post('/decline-tool-call', { runId, decidedBy: { id: 'x' } }, BOB);
    expect(chunksIn(declined.text)[0]).toMatchObject({
      type: 'tool-result',
      payload: { result: 'Tool call was not approved by the user' },
    });
    expect(executionsOf('rec-decline')).toHaveLength(0);
    const history = await (await tollgate.client()).workflow.getHandle(runId).fetchHistory();
    const accepted = (history.events ?? []).find(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes,
    );
    const payload =
      accepted!.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.args!
        .payloads![0]!;
    expect(JSON.parse(Buffer.from(payload.data!).toString())).toEqual({
      agentId: 'http-agent',
      decidedBy: { id: 'bob' },
      deadline: expect.any(String),
    });
  });

  it('maps refused decisions to 404, 409 and 422 with ErrorBody', async () => {
    const missing = await post('/approve-tool-call', { runId: uniqueId('no-such-run') });
    expect(missing).toMatchObject({ status: 404, json: { error: { code: 'RUN_NOT_FOUND' } } });
    const first = await post('/generate', { messages: 'delete rec-conflict' });
    const { runId } = first.json as { runId: string };
    const mismatch = await post('/approve-tool-call-generate', { runId, fingerprint: 'f00' });
    expect(mismatch).toMatchObject({
      status: 409,
      json: { error: { code: 'FINGERPRINT_MISMATCH' } },
    });
    expect(executionsOf('rec-conflict')).toHaveLength(0);
    const done = await post('/approve-tool-call-generate', { runId });
    expect(done).toMatchObject({ status: 200, json: { finishReason: 'stop' } });
    const again = await post('/approve-tool-call', { runId });
    expect(again.status).toBe(409);
    expect((again.json as { error: { code: string } }).error.code).toMatch(
      /^(RUN_FINISHED|NO_PENDING_TOOL_CALL)$/,
    );
    expect(executionsOf('rec-conflict')).toHaveLength(1);
    const taken = await post('/generate', { messages: 'hello', options: { runId } });
    expect(taken).toMatchObject({ status: 422, json: { error: { code: 'INVALID_OPTIONS' } } });
    expect(JSON.stringify([missing.json, mismatch.json, again.json])).not.toMatch(/ at .*\.js/);
  });

  it('resumes a suspended call over SSE and JSON, and refuses bad resume data with 422', async () => {
    const first = await post('/generate', { messages: 'ask me' });
    const { runId, suspendPayload } = first.json as {
      runId: string;
      suspendPayload: { suspendPayload: unknown };
    };
    expect(suspendPayload.suspendPayload).toEqual({ question: 'Why?' });
    const bad = await post('/resume-stream', { runId, resumeData: { wrong: 1 } });
    expect(bad).toMatchObject({ status: 422, json: { error: { code: 'INVALID_RESUME_DATA' } } });
    const pending = await call('GET', `/api/agents/http-agent/pending-tool-calls?runId=${runId}`);
    expect(pending.json).toMatchObject({
      toolCalls: [{ toolName: 'ask-user', requiresApproval: false }],
    });
    const resumed = await post('/resume-stream', { runId, resumeData: { answer: 'because' } });
    expect(chunksIn(resumed.text).at(-1)).toMatchObject({
      type: 'finish',
      payload: { finishReason: 'stop' },
    });

    const second = (await post('/generate', { messages: 'ask again' })).json as { runId: string };
    const output = await post('/resume-generate', {
      runId: second.runId,
      resumeData: { answer: 'ok' },
    });
    expect(output.json).toMatchObject({ finishReason: 'stop', text: 'Result: {"answer":"ok"}' });
  });

  it('observes a run from an offset, with ids counting from that offset', async () => {
    const { runId } = (await post('/generate', { messages: 'hello' })).json as { runId: string };
    const observed = await post('/observe', { runId, offset: 2 });
    expect(observed.headers.get('x-tollgate-start-offset')).toBe('2');
    const events = eventsOf(observed.text);
    expect(events[0]!.id).toBe('2');
    expect(chunksIn(observed.text).map((c) => c.type)).toEqual([
      'text-delta',
      'step-finish',
      'finish',
    ]);
  });

  it('lists suspended runs, the approvals inbox across agents, and decides by thread', async () => {
    const thread = uniqueId('thread');
    const memory = { thread, resource: 'user-1' };
    const mine = (await post('/generate', { messages: 'delete rec-inbox', options: { memory } }))
      .json as {
      runId: string;
    };
    await call('POST', '/api/agents/http-other-agent/generate', {
      body: { messages: 'delete rec-other', options: { memory } },
    });
    const listed = await eventually(async () => {
      const answer = await call('GET', `/api/agents/http-agent/suspended-runs?threadId=${thread}`);
      expect(answer.json).toMatchObject({ total: 1 });
      return answer.json as { runs: Array<{ runId: string }> };
    });
    expect(listed.runs.map((r) => r.runId)).toEqual([mine.runId]);
    const inbox = await eventually(async () => {
      const answer = await call('GET', `/api/approvals?threadId=${thread}`);
      expect(answer.json).toMatchObject({ total: 2 });
      return answer.json as { approvals: Array<{ agentId: string; requestedAt: string }> };
    });
    expect(inbox.approvals.map((a) => a.agentId).sort()).toEqual([
      'http-agent',
      'http-other-agent',
    ]);
    expect(inbox.approvals[0]).toMatchObject({
      threadId: thread,
      resourceId: 'user-1',
      toolName: 'delete-record',
      requiresApproval: true,
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      resumeSchema: expect.any(String),
    });
    expect(Date.parse(inbox.approvals[0]!.requestedAt)).not.toBeNaN();
    const onlyOther = await call(
      'GET',
      `/api/approvals?threadId=${thread}&agentId=http-other-agent`,
    );
    expect((onlyOther.json as { approvals: unknown[] }).approvals).toEqual([
      expect.objectContaining({ agentId: 'http-other-agent' }),
    ]);
    const page1 = await call('GET', `/api/approvals?threadId=${thread}&perPage=1&page=1`);
    expect(page1.json).toMatchObject({ total: 2, approvals: [expect.any(Object)] });

    const sent = await post('/send-tool-approval', {
      threadId: thread,
      resourceId: 'user-1',
      approved: true,
    });
    expect(sent.json).toEqual({
      accepted: true,
      runId: mine.runId,
      toolCallId: expect.any(String),
    });
    await eventually(async () => expect(executionsOf('rec-inbox')).toHaveLength(1));
    const none = await post('/send-tool-approval', {
      threadId: thread,
      resourceId: 'user-1',
      approved: true,
    });
    expect(none.status).toBe(409);
  });

  it('logged no hidden error while serving the tests above', () => {
    expect(hidden).toEqual([]);
  });

  it('serves the inbox directory at / and /inbox/*', async () => {
    const index = await call('GET', '/', { token: null });
    expect(index).toMatchObject({ status: 200, text: '<h1>Inbox</h1>' });
    expect(index.headers.get('content-type')).toContain('text/html');
    const script = await call('GET', '/inbox/app.js', { token: null });
    expect(script.text).toBe('console.log("inbox");');
    expect((await call('GET', '/inbox/', { token: null })).text).toBe('<h1>Inbox</h1>');
    expect((await call('GET', '/inbox/missing.js', { token: null })).status).toBe(404);
    expect((await call('GET', '/inbox/%2e%2e/package.json', { token: null })).status).toBe(404);
  });
});
