/** The chat bridge's pure parts: approval ids, chunk translation, history rebuilding. */
import { describe, expect, it } from '@jest/globals';
import { makeChunk } from '../src/common/chunks.js';
import { TollgateError } from '../src/common/errors.js';
import { approvalIdOf, parseApprovalId } from '../src/server/chat/approval-id.js';
import { withRunMessages } from '../src/server/chat/chat-runs.js';
import { UiChunkTranslator } from '../src/server/chat/ui-chunks.js';
import { userMessageOf } from '../src/server/chat/message-ids.js';
import { uiMessagesOf } from '../src/server/chat/ui-history.js';

const FP = 'a'.repeat(64);

describe('chat approval ids', () => {
  it('round-trip run, call and fingerprint, dots and slashes included', () => {
    const call = { runId: 'run.1/x', toolCallId: 'call.7', fingerprint: FP };
    expect(parseApprovalId(approvalIdOf(call))).toEqual(call);
  });

  it.each([
    ['forged'],
    [''],
    [`a.b.${'z'.repeat(64)}`],
    [`a.b.c.${FP}`],
    [42],
    [{ toString: 1 }],
    [approvalIdOf({ runId: 'run\u0000', toolCallId: 'c', fingerprint: FP })],
  ])('refuse %j with INVALID_APPROVAL_ID', (id) => {
    expect(() => parseApprovalId(id)).toThrow(
      expect.objectContaining({ code: 'INVALID_APPROVAL_ID' }) as unknown as TollgateError,
    );
  });

  it.each([300, 100_000])('refuse a run id of %d characters with INVALID_APPROVAL_ID', (length) => {
    const id = approvalIdOf({ runId: 'r'.repeat(length), toolCallId: 'c', fingerprint: FP });
    expect(() => parseApprovalId(id)).toThrow(
      expect.objectContaining({ code: 'INVALID_APPROVAL_ID' }) as unknown as TollgateError,
    );
  });
});

describe('chunk translation', () => {
  it('turns a gated step into text, tool input and an approval request bound to the call', () => {
    const t = new UiChunkTranslator('m');
    const call = { toolCallId: 'c1', toolName: 'deleteRecord', args: { id: 'r' } };
    const out = [
      makeChunk('run-1', 'step-start', { step: 1 }),
      makeChunk('run-1', 'text-delta', { text: 'Deleting.' }),
      makeChunk('run-1', 'tool-call', call),
      makeChunk('run-1', 'tool-call-approval', { ...call, fingerprint: FP, resumeSchema: '{}' }),
      makeChunk('run-1', 'finish', {
        finishReason: 'suspended',
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      }),
    ].flatMap((c) => t.translate(c));
    expect(out).toEqual([
      { type: 'start-step' },
      { type: 'text-start', id: 'm-text-0' },
      { type: 'text-delta', id: 'm-text-0', delta: 'Deleting.' },
      { type: 'text-end', id: 'm-text-0' },
      {
        type: 'tool-input-available',
        toolCallId: 'c1',
        toolName: 'deleteRecord',
        input: { id: 'r' },
      },
      {
        type: 'tool-approval-request',
        toolCallId: 'c1',
        approvalId: approvalIdOf({ runId: 'run-1', toolCallId: 'c1', fingerprint: FP }),
      },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
  });

  it('shows a declined call as denied, not as its decline text', () => {
    const t = new UiChunkTranslator('m', new Set(['c1']));
    const result = makeChunk('run-1', 'tool-result', {
      toolCallId: 'c1',
      toolName: 'x',
      args: {},
      result: 'Not now',
    });
    expect(t.translate(result)).toEqual([{ type: 'tool-output-denied', toolCallId: 'c1' }]);
  });
});

describe('chat history', () => {
  it('leaves out the thread messages a run read, once', () => {
    const m = (text: string) => ({ role: 'user', content: text });
    expect(withRunMessages([m('a'), m('b'), m('c')], [m('b'), m('c'), m('d')])).toEqual([
      m('a'),
      m('b'),
      m('c'),
      m('d'),
    ]);
    expect(withRunMessages([], [m('d')])).toEqual([m('d')]);
  });

  it('rebuilds user, assistant, tool output and a waiting approval with stable ids', () => {
    const { messages, replyId } = uiMessagesOf(
      'chat',
      [
        { role: 'user', content: [{ type: 'text', text: 'delete r' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Deleting.' },
            { type: 'tool-call', toolCallId: 'c1', toolName: 'deleteRecord', input: { id: 'r' } },
          ],
        },
      ],
      {
        runId: 'run-1',
        calls: [
          {
            toolCallId: 'c1',
            toolName: 'deleteRecord',
            args: { id: 'r' },
            requiresApproval: true,
            fingerprint: FP,
            resumeSchema: '{}',
            requestedAt: '2026-01-01T00:00:00Z',
          },
        ],
      },
    );
    expect(messages).toEqual([
      { id: 'chat-0', role: 'user', parts: [{ type: 'text', text: 'delete r' }] },
      {
        id: 'chat-1',
        role: 'assistant',
        parts: [
          { type: 'step-start' },
          { type: 'text', text: 'Deleting.', state: 'done' },
          {
            type: 'tool-deleteRecord',
            toolCallId: 'c1',
            state: 'approval-requested',
            input: { id: 'r' },
            approval: { id: approvalIdOf({ runId: 'run-1', toolCallId: 'c1', fingerprint: FP }) },
          },
        ],
      },
    ]);
    expect(replyId).toBe('chat-1');
  });

  it('gives messages the ids the chat sent them with; unmarked and repeated ids fall back to positions', () => {
    const reply = { role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] };
    const { messages, replyId } = uiMessagesOf('chat', [
      userMessageOf('one', { messageId: 'u1', replyId: 'run-1' }),
      reply,
      { role: 'user', content: 'from the SDK' },
      reply,
      userMessageOf('again', { messageId: 'u1', replyId: 'run-3' }),
    ]);
    expect(messages.map((m) => m.id)).toEqual(['u1', 'run-1', 'chat-2', 'chat-3', 'chat-4']);
    // The answer still to come to the last message: what a working run's replay is shown as.
    expect(replyId).toBe('run-3');
  });
});
