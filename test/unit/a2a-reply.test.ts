/** Issue 29.2: what an A2A reply means, and when an agent may approve (pure, no server). */
import { describe, expect, it } from '@jest/globals';
import { dataPart, messageOf, textPart } from '../../src/a2a/a2a-parts.js';
import { requireAgentApprover, rulesNameAgent } from '../../src/common/agent-approver.js';
import type { PendingToolCall } from '../../src/common/run-types.js';
import { readReply } from '../../src/server/a2a/a2a-reply.js';
import { checkContextId, contextIdOf, taskIdFor } from '../../src/server/a2a/a2a-task.js';

function call(
  toolCallId: string,
  requiresApproval: boolean,
  extra: Partial<PendingToolCall> = {},
): PendingToolCall {
  return {
    toolCallId,
    toolName: 'tool',
    args: {},
    requiresApproval,
    fingerprint: `fp-${toolCallId}`,
    resumeSchema: '{}',
    requestedAt: '2026-01-01T00:00:00Z',
    ...extra,
  };
}

const ids = { messageId: 'm1', taskId: 't1', contextId: '' };
const text = (words: string) => messageOf('user', ids, [textPart(words)]);
const data = (value: object) => messageOf('user', ids, [dataPart(value as never)]);

describe('readReply', () => {
  it('reads approve and decline from text or a data part, with reason and fingerprint', () => {
    expect(readReply(text('Approve'), [call('a', true)])).toMatchObject({
      kind: 'approve',
      call: { toolCallId: 'a' },
    });
    expect(readReply(text(' no '), [call('a', true)]).kind).toBe('decline');
    expect(
      readReply(data({ decision: 'decline', reason: 'late', fingerprint: 'f' }), [call('a', true)]),
    ).toMatchObject({ kind: 'decline', reason: 'late', fingerprint: 'f' });
  });

  it('refuses words it does not know instead of guessing', () => {
    expect(() => readReply(text('sure, why not'), [call('a', true)])).toThrow(
      /reply "approve" or "decline"/,
    );
  });

  it('needs toolCallId when several calls wait, and refuses one that does not wait', () => {
    const two = [call('a', true), call('b', true)];
    expect(() => readReply(text('approve'), two)).toThrow(/several calls wait \(a, b\)/);
    expect(readReply(data({ toolCallId: 'b', decision: 'approve' }), two).call.toolCallId).toBe(
      'b',
    );
    expect(() => readReply(data({ toolCallId: 'c', decision: 'approve' }), two)).toThrow(
      /no call "c" waits/,
    );
  });

  it('takes resume data from a data part (its resumeData, else the part), or { text }', () => {
    expect(readReply(data({ answer: 'x', toolCallId: 's' }), [call('s', false)])).toMatchObject({
      kind: 'resume',
      resumeData: { answer: 'x' },
    });
    expect(readReply(data({ resumeData: [1, 2] }), [call('s', false)])).toMatchObject({
      resumeData: [1, 2],
    });
    expect(readReply(text('staging'), [call('s', false)])).toMatchObject({
      resumeData: { text: 'staging' },
    });
    expect(() => readReply(text('  '), [call('s', false)])).toThrow(/send text or a data part/);
  });
});

describe('agents as approvers', () => {
  const bot = { id: 'planner-bot', roles: ['bots'] };
  it('lets an agent approve only where the rules name it by id or role, narrowed approvers included', () => {
    expect(rulesNameAgent({ toolName: 't' }, bot)).toBe(false);
    expect(rulesNameAgent({ toolName: 't', approvers: ['alice'] }, bot)).toBe(false);
    expect(rulesNameAgent({ toolName: 't', approvers: ['planner-bot'] }, bot)).toBe(true);
    expect(rulesNameAgent({ toolName: 't', approvers: ['role:bots'] }, bot)).toBe(true);
    expect(
      rulesNameAgent({ toolName: 't', approvers: ['role:bots'], alsoApprovers: ['alice'] }, bot),
    ).toBe(false);
    expect(() => requireAgentApprover({ toolName: 'deleteRecord' }, bot)).toThrow(
      /may not approve the call of "deleteRecord"/,
    );
  });
});

describe('task ids', () => {
  it('carry the context id, differ by caller and message, and refuse context ids they cannot carry', () => {
    const id = taskIdFor('alice', 'ctx-1', 'm1');
    expect(contextIdOf(id)).toBe('ctx-1');
    expect(taskIdFor('alice', 'ctx-1', 'm1')).toBe(id);
    expect(taskIdFor('bob', 'ctx-1', 'm1')).not.toBe(id);
    expect(contextIdOf('plain-run-id')).toBe('plain-run-id');
    expect(() => checkContextId('a.b')).toThrow(/contextId "a.b"/);
  });
});
