/**
 * The chat route over HTTP: forged or stale approval ids and answers outside the token's scope
 * get a typed error and change nothing (no history event, the tool never runs); a call parked
 * by suspend() is answered with a tool output.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { UIMessage } from 'ai';
import { threadWorkflowId } from '../src/common/wire.js';
import type { Tollgate } from '../src/index.js';
import { approvalIdOf } from '../src/server/chat/approval-id.js';
import { chatHandler, createTollgateServer, type ListeningServer } from '../src/server/index.js';
import {
  askUserTool,
  eventually,
  gatedTestAgent,
  hostAgents,
  lastToolOutputs,
  outputsText,
  recordingTool,
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
  // Two gated calls in one step, then a report of their results.
  const pair = recordingTool('delete-record', { requireApproval: true });
  const { agent: pairAgent } = testAgent('chat-pair-agent', [pair.tool], (prompt) => {
    const outputs = lastToolOutputs(prompt);
    if (outputs) return { text: `Done: ${outputsText(outputs)}` };
    const calls = ['a', 'b'].map((id) => ({ toolName: 'delete-record', args: { id } }));
    return { toolCalls: calls };
  });
  let tollgate: Tollgate;
  let server: ListeningServer;

  beforeAll(async () => {
    tollgate = await hostAgents([agent, askAgent, pairAgent], 'chat-bridge');
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

  const page = async (chat: string, path = url): Promise<UIMessage[]> => {
    const answer = await fetch(`${server.url}${path}/${chat}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return ((await answer.json()) as { messages: UIMessage[] }).messages;
  };

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

  it('an approval and a decline in one request stream the run to its end: the approved call runs once, the declined never', async () => {
    const pairUrl = '/api/agents/chat-pair-agent/chat';
    // The decline may reach the run before or after the approved call has run and the run has
    // stopped to wait again: several tries give both orders their chance.
    for (let attempt = 0; attempt < 6; attempt++) {
      const chat = uniqueId('chat-pair');
      const user: UIMessage = {
        id: `u-${chat}`,
        role: 'user',
        parts: [{ type: 'text', text: 'go' }],
      };
      const started = sseChunks(
        await (await post({ id: chat, messages: [user] }, TOKEN, pairUrl)).text(),
      );
      const runId = String(started[0]!.messageId);
      expect(started.filter((c) => c.type === 'tool-approval-request')).toHaveLength(2);
      const messages = (await page(chat, pairUrl)).map((message) => ({
        ...message,
        parts: message.parts.map((part) =>
          'approval' in part && part.state === 'approval-requested'
            ? {
                ...part,
                state: 'approval-responded',
                approval: {
                  id: part.approval.id,
                  approved: (part.input as { id: string }).id === 'a',
                },
              }
            : part,
        ),
      })) as UIMessage[];
      const callOf = (id: string) =>
        messages
          .flatMap((m) => m.parts)
          .find((p) => 'input' in p && (p.input as { id: string }).id === id) as {
          toolCallId: string;
        };

      const answered = await post({ id: chat, messages }, TOKEN, pairUrl);
      expect(answered.status).toBe(200);
      const rest = sseChunks(await answered.text());
      expect(rest).toContainEqual(
        expect.objectContaining({
          type: 'tool-output-available',
          toolCallId: callOf('a').toolCallId,
        }),
      );
      expect(rest).toContainEqual({
        type: 'tool-output-denied',
        toolCallId: callOf('b').toolCallId,
      });
      expect(rest).toContainEqual(
        expect.objectContaining({ type: 'text-delta', delta: expect.stringContaining('Done: ') }),
      );
      expect(rest.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
      const ran = pair.executions.filter((e) => e.idempotencyKey.startsWith(`${runId}:`));
      expect([attempt, ran.map((e) => e.input)]).toEqual([attempt, [{ id: 'a' }]]);
      expect(await tollgate.getAgent('chat-pair-agent').pendingToolCalls(runId)).toEqual([]);
    }
  });

  it('approving and declining one call in one message is refused whole: nothing is decided, the tool never runs', async () => {
    const chat = uniqueId('chat');
    const { runId, messages } = await parked(chat);
    const id = approvalIdIn(messages);
    const both = messages.map((message) => ({
      ...message,
      parts: message.parts.flatMap((part) =>
        'approval' in part && part.state === 'approval-requested'
          ? [true, false].map((approved) => ({
              ...part,
              state: 'approval-responded',
              approval: { id, approved },
            }))
          : [part],
      ),
    })) as UIMessage[];
    const before = await historyLength(runId);
    const answer = await post({ id: chat, messages: both });
    expect([
      answer.status,
      ((await answer.json()) as { error: { code: string } }).error.code,
    ]).toEqual([422, 'INVALID_DECISION']);
    expect(await historyLength(runId)).toBe(before);
    expect(executions.filter((e) => e.idempotencyKey.startsWith(`${runId}:`))).toHaveLength(0);
    const audit = await tollgate.getAgent('chat-bridge-agent').getAuditTrail(runId);
    expect(audit.filter((e) => e.type === 'decision')).toEqual([]);
    expect(await tollgate.getAgent('chat-bridge-agent').pendingToolCalls(runId)).toHaveLength(1);
  });

  it('a message keeps its id: the live response and every reload show the same ids', async () => {
    const chat = uniqueId('chat');
    const user: UIMessage = {
      id: `u-${chat}`,
      role: 'user',
      parts: [{ type: 'text', text: 'go' }],
    };
    const started = sseChunks(await (await post({ id: chat, messages: [user] })).text());
    const assistantId = String(started[0]!.messageId);
    const waiting = await page(chat);
    expect(waiting.map((m) => [m.role, m.id])).toEqual([
      ['user', user.id],
      ['assistant', assistantId],
    ]);
    const approved = await post({ id: chat, messages: answered(waiting, approvalIdIn(waiting)) });
    const rest = sseChunks(await approved.text());
    // The continuation adds to the same assistant message: its start names no other id.
    expect(rest[0]).toEqual({ type: 'start' });
    expect(rest.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    // Finished, the run's messages are read back from the chat's thread: the same ids.
    await eventually(async () => {
      const reloaded = await page(chat);
      expect(reloaded.map((m) => [m.role, m.id])).toEqual([
        ['user', user.id],
        ['assistant', assistantId],
      ]);
      expect(reloaded[1]!.parts.some((p) => p.type === 'text' && p.text === 'Deleted.')).toBe(true);
    });
  });

  it('hostile answers and chat ids are typed 4xx errors that decide nothing', async () => {
    const chat = uniqueId('chat');
    const { runId, messages } = await parked(chat);
    const [call] = await tollgate.getAgent('chat-bridge-agent').pendingToolCalls(runId);
    // A finished run of another chat leaves a thread workflow behind: a workflow, not a run.
    const otherChat = uniqueId('chat');
    const other = await parked(otherChat);
    await tollgate.getAgent('chat-bridge-agent').approveToolCallGenerate({ runId: other.runId });
    const thread = threadWorkflowId('chat-bridge-agent', 'alice', otherChat);
    const ran = executions.length;
    const before = await historyLength(runId);
    const forged = (target: string) =>
      approvalIdOf({ runId: target, toolCallId: call!.toolCallId, fingerprint: call!.fingerprint });
    const withApproval = (approval: unknown) =>
      messages.map((message) => ({
        ...message,
        parts: message.parts.map((part) =>
          'approval' in part ? { ...part, state: 'approval-responded', approval } : part,
        ),
      }));
    const bodies: Array<[string, unknown]> = [
      ['not an agent run', withApproval({ id: forged(thread), approved: true })],
      ['a 100 KB run id', withApproval({ id: forged('r'.repeat(100_000)), approved: true })],
      ['an object for the id', withApproval({ id: { toString: 'x' }, approved: true })],
      [
        'an object for a suspended call id',
        [
          ...messages.slice(0, -1),
          {
            ...messages.at(-1)!,
            parts: [
              ...messages.at(-1)!.parts,
              {
                type: 'data-tollgate-suspend',
                id: 'x',
                data: { runId, toolCallId: { toString: 1 } },
              },
            ],
          },
        ],
      ],
    ];
    const answers: unknown[] = [];
    for (const [name, body] of bodies) {
      const answer = await post({ id: chat, messages: body });
      answers.push([name, answer.status, await codeOf(answer)]);
    }
    for (const path of [`${url}/%00`, `${url}/${'c'.repeat(300)}`, `${url}/%00/stream`]) {
      const answer = await fetch(server.url + path, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      answers.push([path, answer.status, await codeOf(answer)]);
    }
    expect(answers).toEqual([
      ...bodies.slice(0, 3).map(([name]) => [name, 422, 'INVALID_APPROVAL_ID']),
      // A suspend part that names no call is no answer: the message answers nothing.
      [bodies[3]![0], 422, 'INVALID_DECISION'],
      [`${url}/%00`, 400, 'BAD_REQUEST'],
      [`${url}/${'c'.repeat(300)}`, 400, 'BAD_REQUEST'],
      [`${url}/%00/stream`, 400, 'BAD_REQUEST'],
    ]);
    expect(await historyLength(runId)).toBe(before);
    expect(executions).toHaveLength(ran);
  });
});

/** The error code of an answer, or what it carried instead. */
async function codeOf(answer: Response): Promise<string> {
  const text = await answer.text();
  try {
    return (JSON.parse(text) as { error: { code: string } }).error.code;
  } catch {
    return `not an error body: ${text.slice(0, 40)}`;
  }
}

/** The UI message chunks of an SSE body, without the final `[DONE]`. */
function sseChunks(text: string): Array<{ type: string } & Record<string, unknown>> {
  return text
    .split('\n\n')
    .map((event) => event.replace(/^data: /, '').trim())
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as { type: string });
}
