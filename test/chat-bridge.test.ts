/**
 * The chat route over HTTP: forged or stale approval ids and answers outside the token's scope
 * get a typed error and change nothing (no history event, the tool never runs); a call parked
 * by suspend() is answered with a tool output.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { UIMessage } from 'ai';
import type { Tollgate } from '../src/index.js';
import { chatHandler, createTollgateServer, type ListeningServer } from '../src/server/index.js';
import {
  askUserTool,
  eventually,
  gatedTestAgent,
  hostAgents,
  lastToolOutputs,
  outputsText,
  testAgent,
  uniqueId,
} from './support/harness.js';

const TOKEN = 'bridge-alice-token-0123456789';
const READER = 'bridge-reader-token-0123456789';

describe('the chat route: approval ids, refusals that write nothing, suspended calls', () => {
  const { agent, executions } = gatedTestAgent('chat-bridge-agent');
  const { agent: askAgent } = testAgent('chat-ask-agent', [askUserTool()], (prompt) => {
    const outputs = lastToolOutputs(prompt);
    return outputs
      ? { text: `Answer: ${outputsText(outputs)}` }
      : { toolCalls: [{ toolName: 'ask-user', args: {} }] };
  });
  let tollgate: Tollgate;
  let server: ListeningServer;

  beforeAll(async () => {
    tollgate = await hostAgents([agent, askAgent], 'chat-bridge');
    server = await createTollgateServer({
      tollgate,
      auth: {
        tokens: [
          { token: TOKEN, id: 'alice' },
          { token: READER, id: 'rita', scopes: { actions: ['read'] } },
        ],
      },
    }).listen({ port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await tollgate?.shutdown();
  });

  const url = `/api/agents/chat-bridge-agent/chat`;
  const post = (body: unknown, token = TOKEN, path = url) =>
    fetch(server.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const historyLength = async (runId: string) =>
    (await (await tollgate.client()).workflow.getHandle(runId).fetchHistory()).events!.length;

  /** A run parked in `chat`'s thread, and the messages its chat page shows. */
  async function parked(chat: string) {
    const run = await tollgate
      .getAgent('chat-bridge-agent')
      .generate('delete it', { memory: { thread: chat, resource: 'alice' } });
    expect(run.finishReason).toBe('suspended');
    const answer = await fetch(`${server.url}${url}/${chat}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const { messages } = (await answer.json()) as { messages: UIMessage[] };
    return { runId: run.runId, messages };
  }

  /** The page's messages with the waiting call answered under `approvalId`. */
  function answered(messages: UIMessage[], approvalId: string, approved = true): UIMessage[] {
    return messages.map((message) => ({
      ...message,
      parts: message.parts.map((part) =>
        'approval' in part && part.state === 'approval-requested'
          ? { ...part, state: 'approval-responded', approval: { id: approvalId, approved } }
          : part,
      ),
    })) as UIMessage[];
  }

  const approvalIdIn = (messages: UIMessage[]): string => {
    for (const message of messages) {
      for (const part of message.parts) {
        if ('approval' in part && part.approval) return part.approval.id;
      }
    }
    throw new Error('no approval part');
  };

  it('the page gets the waiting call as a tool-approval part bound to the call and fingerprint', async () => {
    const chat = uniqueId('chat');
    const { runId, messages } = await parked(chat);
    const [call] = await tollgate.getAgent('chat-bridge-agent').pendingToolCalls(runId);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const id = approvalIdIn(messages);
    expect(id.split('.')).toEqual([
      Buffer.from(runId).toString('base64url'),
      Buffer.from(call!.toolCallId).toString('base64url'),
      call!.fingerprint,
    ]);
  });

  it('forged, mismatched and foreign approval ids are typed errors that write nothing', async () => {
    const chat = uniqueId('chat');
    const { runId, messages } = await parked(chat);
    const other = await parked(uniqueId('chat'));
    const real = approvalIdIn(messages);
    const [run, call] = real.split('.');
    const before = await historyLength(runId);
    const cases: Array<[string, number, string]> = [
      ['forged-id', 422, 'INVALID_APPROVAL_ID'],
      [`${run}.${call}.${'0'.repeat(64)}`, 409, 'FINGERPRINT_MISMATCH'],
      // Another chat's real approval id, posted to this chat.
      [approvalIdIn(other.messages), 422, 'INVALID_APPROVAL_ID'],
    ];
    for (const [approvalId, status, code] of cases) {
      const answer = await post({ id: chat, messages: answered(messages, approvalId) });
      const body = (await answer.json()) as { error: { code: string } };
      expect([approvalId, answer.status, body.error.code]).toEqual([approvalId, status, code]);
    }
    // A token that may only read cannot decide through the chat.
    const reader = await post({ id: chat, messages: answered(messages, real) }, READER);
    expect(reader.status).toBe(403);
    expect(await historyLength(runId)).toBe(before);
    expect(executions).toHaveLength(0);
  });

  it('an answer for a call that no longer waits is TOOL_CALL_NOT_PENDING and changes nothing', async () => {
    const chat = uniqueId('chat');
    const { runId, messages } = await parked(chat);
    const first = await post({ id: chat, messages: answered(messages, approvalIdIn(messages)) });
    expect(first.status).toBe(200);
    const stream = await first.text();
    expect(stream).toContain('"type":"tool-output-available"');
    expect(stream.trim().endsWith('data: [DONE]')).toBe(true);
    expect(executions.filter((e) => e.idempotencyKey.includes(runId))).toHaveLength(1);
    const ran = executions.length;
    const before = await historyLength(runId);

    const again = await post({
      id: chat,
      messages: answered(messages, approvalIdIn(messages), false),
    });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe(
      'TOOL_CALL_NOT_PENDING',
    );
    expect(await historyLength(runId)).toBe(before);
    expect(executions).toHaveLength(ran);
  });

  it('a call parked by suspend() is a data part; the tool output the user gives resumes it', async () => {
    const chat = uniqueId('chat');
    const askUrl = '/api/agents/chat-ask-agent/chat';
    const user: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] };
    const first = await post({ id: chat, messages: [user] }, TOKEN, askUrl);
    const chunks = sseChunks(await first.text());
    const suspend = chunks.find((c) => c.type === 'data-tollgate-suspend') as unknown as {
      data: { runId: string; toolCallId: string; suspendPayload: unknown };
    };
    expect(suspend.data.suspendPayload).toEqual({ question: 'Why?' });
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });

    const page = await fetch(`${server.url}${askUrl}/${chat}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const { messages } = (await page.json()) as { messages: UIMessage[] };
    const answer = (output: unknown): UIMessage[] =>
      messages.map((m) => ({
        ...m,
        parts: m.parts.map((p) =>
          'toolCallId' in p && p.toolCallId === suspend.data.toolCallId
            ? { ...p, state: 'output-available', output }
            : p,
        ),
      })) as UIMessage[];
    expect(messages.at(-1)!.parts.map((p) => p.type)).toEqual([
      'step-start',
      'tool-ask-user',
      'data-tollgate-suspend',
    ]);

    // Resume data that does not fit resumeSchema is refused by the run; it still waits.
    const bad = await post({ id: chat, messages: answer({ answer: 5 }) }, TOKEN, askUrl);
    expect([bad.status, ((await bad.json()) as { error: { code: string } }).error.code]).toEqual([
      422,
      'INVALID_RESUME_DATA',
    ]);

    const resumed = await post(
      { id: chat, messages: answer({ answer: 'Because' }) },
      TOKEN,
      askUrl,
    );
    const rest = sseChunks(await resumed.text());
    expect(rest).toContainEqual({
      type: 'tool-output-available',
      toolCallId: suspend.data.toolCallId,
      output: { answer: 'Because' },
    });
    expect(rest).toContainEqual(
      expect.objectContaining({ type: 'text-delta', delta: 'Answer: {"answer":"Because"}' }),
    );
    expect(rest.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
  });

  it('chatHandler serves the same chat as a Request → Response handler, with the identity it is given', async () => {
    const handler = chatHandler(tollgate, {
      agentId: 'chat-bridge-agent',
      identify: (request) => {
        const user = request.headers.get('x-user');
        return user ? { identity: { id: user }, resource: `tenant-${user}` } : undefined;
      },
    });
    const chat = uniqueId('chat');
    const request = (init: RequestInit & { path?: string }, user?: string) =>
      handler(
        new Request(`http://app.test/api/chat${init.path ?? ''}`, {
          ...init,
          headers: { 'content-type': 'application/json', ...(user ? { 'x-user': user } : {}) },
        }),
      );
    const user: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'delete' }] };
    const body = JSON.stringify({ id: chat, messages: [user] });
    expect((await request({ method: 'POST', body })).status).toBe(401);

    const started = await request({ method: 'POST', body }, 'bob');
    expect(started.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const chunks = sseChunks(await started.text());
    const approval = chunks.find((c) => c.type === 'tool-approval-request') as unknown as {
      approvalId: string;
    };
    const [runId] = approval.approvalId
      .split('.')
      .map((p) => Buffer.from(p, 'base64url').toString());
    // The run is labelled with bob's resource (visibility may take a moment to show it).
    await eventually(async () => {
      const run = await tollgate.getAgent('chat-bridge-agent').listSuspendedRuns({
        threadId: chat,
        resourceId: 'tenant-bob',
      });
      expect(run.runs.map((r) => r.runId)).toEqual([runId]);
    });

    const listed = await request({ method: 'GET', path: `?chatId=${chat}` }, 'bob');
    const { messages } = (await listed.json()) as { messages: UIMessage[] };
    expect(approvalIdIn(messages)).toBe(approval.approvalId);
    // Another user's chat of the same id is another thread: empty, and bob's call is not theirs.
    const other = await request({ method: 'GET', path: `?chatId=${chat}` }, 'eve');
    expect(((await other.json()) as { messages: UIMessage[] }).messages).toEqual([]);
    const stolen = await request(
      {
        method: 'POST',
        body: JSON.stringify({ id: chat, messages: answered(messages, approval.approvalId) }),
      },
      'eve',
    );
    expect(stolen.status).toBe(422);
    // Nothing works on bob's chat: the resume URL answers 204.
    expect((await request({ method: 'GET', path: `/${chat}/stream` }, 'bob')).status).toBe(204);

    const approved = await request(
      {
        method: 'POST',
        body: JSON.stringify({ id: chat, messages: answered(messages, approval.approvalId) }),
      },
      'bob',
    );
    const rest = sseChunks(await approved.text());
    expect(rest.map((c) => c.type)).toContain('tool-output-available');
    const audit = await tollgate.getAgent('chat-bridge-agent').getAuditTrail(runId!);
    expect(audit.find((e) => e.type === 'decision')).toMatchObject({
      decision: 'approved',
      decidedBy: { id: 'bob' },
    });
  });
});

/** The UI message chunks of an SSE body, without the final `[DONE]`. */
function sseChunks(text: string): Array<{ type: string } & Record<string, unknown>> {
  return text
    .split('\n\n')
    .map((event) => event.replace(/^data: /, '').trim())
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as { type: string });
}
