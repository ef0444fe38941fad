/**
 * The AG-UI adapter's pure parts, checked against @ag-ui/core's published schemas: chunks
 * become events, waiting calls become interrupts, resume entries become decisions, a thread's
 * model messages become AG-UI messages.
 */
import { describe, expect, it } from '@jest/globals';
import { EventSchema, InterruptSchema, MessageSchema } from '@ag-ui/core/schemas';
import { makeChunk, ZERO_USAGE, type Chunk } from '../../src/common/chunks.js';
import type { JsonValue } from '../../src/common/json.js';
import type { PendingToolCall } from '../../src/common/run-types.js';
import { AgUiTranslator } from '../../src/server/ag-ui/ag-ui-events.js';
import { agUiMessagesOf } from '../../src/server/ag-ui/ag-ui-messages.js';
import { followPoint } from '../../src/server/ag-ui/follow-point.js';
import { answerOf, interruptOf } from '../../src/server/ag-ui/interrupts.js';

const RUN = 'run-1';
const call: PendingToolCall = {
  toolCallId: 'call-1',
  toolName: 'deleteRecord',
  args: { id: 'rec-1' },
  requiresApproval: true,
  fingerprint: 'a'.repeat(64),
  resumeSchema: '{"type":"object","properties":{}}',
  requestedAt: '2026-01-01T00:00:00.000Z',
};
const suspended: PendingToolCall = {
  ...call,
  requiresApproval: false,
  suspendPayload: { question: 'Why?' },
  resumeSchema: '{"type":"object","properties":{"answer":{"type":"string"}}}',
};

function translate(chunks: Chunk[]) {
  const translator = new AgUiTranslator('agui-run');
  const events = [...chunks.flatMap((c) => translator.translate(c)), ...translator.close()];
  for (const event of events) expect(EventSchema.safeParse(event).error).toBeUndefined();
  return { events, end: translator.takeEnd() };
}

describe('AgUiTranslator', () => {
  it('opens text once per stretch, closes it before a tool call, and shows each call once', () => {
    const { events, end } = translate([
      makeChunk(RUN, 'step-start', { step: 1 }),
      makeChunk(RUN, 'text-delta', { text: 'On it' }),
      makeChunk(RUN, 'tool-call', { toolCallId: 'c', toolName: 't', args: { a: 1 } }),
      makeChunk(RUN, 'tool-call-approval', {
        toolCallId: 'c',
        toolName: 't',
        args: { a: 1 },
        fingerprint: 'f',
        resumeSchema: '{}',
      }),
      makeChunk(RUN, 'finish', { finishReason: 'suspended', usage: ZERO_USAGE }),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'STEP_FINISHED',
    ]);
    expect(events[4]).toMatchObject({ parentMessageId: 'agui-run:text:0', toolCallName: 't' });
    expect(end).toEqual({ kind: 'finished', finishReason: 'suspended' });
  });

  it('a continuation: a step finish it never saw start is dropped, a result stands alone', () => {
    const { events } = translate([
      makeChunk(RUN, 'tool-result', {
        toolCallId: 'c',
        toolName: 't',
        args: {},
        result: 'Tool call was not approved by the user',
        code: 'TOOL_CALL_DECLINED',
      }),
      makeChunk(RUN, 'step-finish', { step: 1, finishReason: 'tool-calls', usage: ZERO_USAGE }),
    ]);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'TOOL_CALL_RESULT',
        toolCallId: 'c',
        messageId: 'c:result',
        content: 'Tool call was not approved by the user',
        metadata: { tollgate: { code: 'TOOL_CALL_DECLINED' } },
      }),
    ]);
  });

  it("a run's error chunk is the stretch's end, with its code", () => {
    const { end } = translate([makeChunk(RUN, 'error', { error: 'boom', code: 'RUN_FAILED' })]);
    expect(end).toEqual({ kind: 'error', message: 'boom', code: 'RUN_FAILED' });
  });
});

describe('interrupts', () => {
  const lookup = (found: PendingToolCall | undefined) => async () => found;

  it('a gated call and a suspended call are schema-valid interrupts that say what they expect', () => {
    const approval = interruptOf(RUN, call);
    const suspension = interruptOf(RUN, suspended);
    for (const i of [approval, suspension]) expect(InterruptSchema.safeParse(i).success).toBe(true);
    expect(approval).toMatchObject({ reason: 'tool_approval', toolCallId: 'call-1' });
    expect(suspension).toMatchObject({
      reason: 'input_required',
      responseSchema: { properties: { answer: { type: 'string' } } },
      metadata: { tollgate: { runId: RUN, suspendPayload: { question: 'Why?' } } },
    });
  });

  it('resume entries become decisions: approve with edits, decline, cancel, resume data', async () => {
    const id = interruptOf(RUN, call).id;
    const payload = { approved: true, editedArgs: { id: 'rec-2' } };
    expect(await answerOf({ interruptId: id, status: 'resolved', payload }, lookup(call))).toEqual(
      expect.objectContaining({ kind: 'approve', runId: RUN, args: { id: 'rec-2' } }),
    );
    const no = { approved: false, reason: 'no' };
    expect(
      await answerOf({ interruptId: id, status: 'resolved', payload: no }, lookup(call)),
    ).toEqual(expect.objectContaining({ kind: 'decline', reason: 'no' }));
    expect(await answerOf({ interruptId: id, status: 'cancelled' }, lookup(call))).toEqual(
      expect.objectContaining({ kind: 'decline' }),
    );
    const data = { answer: 'because' };
    expect(
      await answerOf({ interruptId: id, status: 'resolved', payload: data }, lookup(suspended)),
    ).toEqual(expect.objectContaining({ kind: 'resume', resumeData: data }));
  });

  it('refuses with typed errors: forged id, gone call, bad approval payload, cancelled suspension', async () => {
    const id = interruptOf(RUN, call).id;
    const cases: Array<[Parameters<typeof answerOf>[0], PendingToolCall | undefined, string]> = [
      [{ interruptId: 'forged', status: 'resolved' }, call, 'INVALID_APPROVAL_ID'],
      [
        { interruptId: id, status: 'resolved', payload: { approved: true } },
        undefined,
        'TOOL_CALL_NOT_PENDING',
      ],
      [
        { interruptId: id, status: 'resolved', payload: { approved: 'yes' } },
        call,
        'INVALID_DECISION',
      ],
      [{ interruptId: id, status: 'cancelled' }, suspended, 'INVALID_DECISION'],
    ];
    for (const [entry, found, code] of cases) {
      await expect(answerOf(entry, lookup(found))).rejects.toMatchObject({ code });
    }
  });
});

describe('agUiMessagesOf', () => {
  it('rebuilds user, assistant (text and tool calls) and tool messages, schema-valid', () => {
    const messages = agUiMessagesOf('t', [
      { role: 'user', content: 'delete it', providerOptions: { tollgate: { messageId: 'm1' } } },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Sure.' },
          { type: 'tool-call', toolCallId: 'c', toolName: 'del', input: { id: 'r' } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c', output: { type: 'json', value: { ok: 1 } } },
        ],
      },
    ]);
    for (const m of messages) expect(MessageSchema.safeParse(m).success).toBe(true);
    expect(messages).toEqual([
      { id: 'm1', role: 'user', content: 'delete it' },
      {
        id: 't-1',
        role: 'assistant',
        content: 'Sure.',
        toolCalls: [
          { id: 'c', type: 'function', function: { name: 'del', arguments: '{"id":"r"}' } },
        ],
      },
      { id: 'c:result', role: 'tool', toolCallId: 'c', content: '{"ok":1}' },
    ]);
  });
});

describe('followPoint', () => {
  const call = { toolCallId: 'c', toolName: 'lookup', args: {} };
  const usage = { finishReason: 'tool-calls' as const, usage: ZERO_USAGE };
  // A run's log from offset 10 (a continued execution): step 3 called `c`, its result, step 4.
  const log = {
    offset: 10,
    chunks: [
      makeChunk(RUN, 'step-start', { step: 3 }),
      makeChunk(RUN, 'text-delta', { text: 'Looking.' }),
      makeChunk(RUN, 'tool-call', call),
      makeChunk(RUN, 'step-finish', { step: 3, ...usage }),
      makeChunk(RUN, 'tool-result', { ...call, result: 'r' }),
      makeChunk(RUN, 'step-start', { step: 4 }),
      makeChunk(RUN, 'text-delta', { text: 'Done.' }),
      makeChunk(RUN, 'step-finish', { step: 4, ...usage, finishReason: 'stop' }),
      makeChunk(RUN, 'finish', { finishReason: 'stop', usage: ZERO_USAGE }),
    ],
  };
  const user: JsonValue = { role: 'user', content: 'look' };
  const asked: JsonValue = {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Looking.' },
      { type: 'tool-call', toolCallId: 'c', toolName: 'lookup', input: {} },
    ],
  };
  const answered: JsonValue = {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'c', output: { type: 'text', value: 'r' } }],
  };

  it('starts at the log when the snapshot holds no step of it', () => {
    expect(followPoint([user], log)).toEqual({
      offset: 10,
      calls: new Set(),
      results: new Set(),
    });
  });

  it('follows from the step-finish of the newest step the snapshot holds; its shown result is not sent again', () => {
    expect(followPoint([user, asked], log)).toMatchObject({ offset: 14, results: new Set() });
    const point = followPoint([user, asked, answered], log);
    expect(point).toEqual({ offset: 14, calls: new Set(['c']), results: new Set(['c']) });
    const translator = new AgUiTranslator('agui-run', point);
    const events = log.chunks
      .slice(point.offset - log.offset)
      .flatMap((c) => translator.translate(c));
    expect(events.map((e) => e.type)).toEqual([
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
    ]);
    // A call the snapshot shows is not started again when its approval is logged later.
    expect(
      translator.translate(
        makeChunk(RUN, 'tool-call-approval', { ...call, fingerprint: 'f', resumeSchema: '{}' }),
      ),
    ).toEqual([]);
  });

  it('a last step without calls is held when the snapshot ends with its text', () => {
    const done: JsonValue = { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] };
    expect(followPoint([user, asked, answered, done], log).offset).toBe(18);
    const other: JsonValue = { role: 'assistant', content: [{ type: 'text', text: 'Other.' }] };
    expect(followPoint([user, asked, answered, other], log).offset).toBe(14);
  });
});
