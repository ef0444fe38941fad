/**
 * The chat route's refusals: forged or stale approval ids, answers outside the token's scope.
 * Each gets a typed error and changes nothing (no history event, the tool never runs).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { UIMessage } from 'ai';
import type { Tollgate } from '../src/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { gatedTestAgent, hostAgents, uniqueId } from './support/harness.js';

const TOKEN = 'bridge-alice-token-0123456789';
const READER = 'bridge-reader-token-0123456789';

describe('the chat route refuses answers that name no waiting call of the chat', () => {
  const { agent, executions } = gatedTestAgent('chat-bridge-agent');
  let tollgate: Tollgate;
  let server: ListeningServer;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'chat-bridge');
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
  const post = (body: unknown, token = TOKEN) =>
    fetch(server.url + url, {
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
});
