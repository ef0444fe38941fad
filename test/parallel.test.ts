import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { createTool, type Tollgate } from '../src/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import {
  chunksOf,
  hostAgents,
  recordingTool,
  settlesWithin,
  testAgent,
} from './support/harness.js';

/** Step 1: three parallel calls (two gated, one not). Step 2: lists the results it received. */
const parallelThenReport: TurnPicker = (prompt) => {
  const last = prompt.at(-1);
  if (last?.role === 'tool') {
    const names = last.content.map((part) =>
      part.type === 'tool-result'
        ? `${part.toolName}:${JSON.stringify((part.output as { value?: unknown }).value)}`
        : '?',
    );
    return { text: `Got ${names.length} results: ${names.join(' | ')}` };
  }
  return {
    toolCalls: [
      { toolName: 'charge-card', args: { id: 'A' }, toolCallId: 'call-A' },
      { toolName: 'send-email', args: { id: 'B' }, toolCallId: 'call-B' },
      { toolName: 'lookup', args: { id: 'C' }, toolCallId: 'call-C' },
    ],
  };
};

describe('parallel tool calls in one step', () => {
  const charge = recordingTool('charge-card', { requireApproval: true });
  const email = recordingTool('send-email', { requireApproval: true });
  const lookup = recordingTool('lookup');
  const { agent, model } = testAgent(
    'parallel-agent',
    [charge.tool, email.tool, lookup.tool],
    parallelThenReport,
  );
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'parallel');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  it('runs the ungated call at once and gates each gated call on its own', async () => {
    const a = tollgate.getAgent('parallel-agent');
    const stream = await a.stream('Charge, e-mail and look up.');
    const chunks = await chunksOf(stream);
    const approvals = chunks
      .filter((c) => c.type === 'tool-call-approval')
      .map((c) => (c.payload as { toolCallId: string }).toolCallId);
    expect(approvals.sort()).toEqual(['call-A', 'call-B']);
    expect(chunks.find((c) => c.type === 'tool-result')?.payload).toMatchObject({
      toolCallId: 'call-C',
    });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'suspended' } });
    expect(await a.pendingToolCalls(stream.runId)).toEqual([
      expect.objectContaining({ toolCallId: 'call-A', requiresApproval: true }),
      expect.objectContaining({ toolCallId: 'call-B', requiresApproval: true }),
    ]);
    expect(charge.executions).toHaveLength(0);
    expect(email.executions).toHaveLength(0);

    // Decided in reverse order of request: B first, then A.
    const afterB = await a.approveToolCall({ runId: stream.runId, toolCallId: 'call-B' });
    const chunksB = await chunksOf(afterB);
    expect(chunksB.map((c) => c.type)).toEqual(['tool-result', 'finish']);
    expect(await afterB.finishReason).toBe('suspended');
    expect(await afterB.suspendPayload).toMatchObject({ toolCallId: 'call-A' });
    expect(email.executions).toHaveLength(1);
    expect(charge.executions).toHaveLength(0);
    const promptsBeforeA = model.prompts.length;

    const afterA = await a.declineToolCall({
      runId: stream.runId,
      toolCallId: 'call-A',
      reason: 'Too expensive',
    });
    expect(await afterA.finishReason).toBe('stop');
    expect(charge.executions).toHaveLength(0);
    expect(email.executions).toHaveLength(1);
    expect(lookup.executions).toHaveLength(1);
    // The model was asked once more, with all three results of the step together.
    expect(model.prompts.length).toBe(promptsBeforeA + 1);
    expect(await afterA.text).toBe(
      'Got 3 results: charge-card:"Too expensive" | send-email:{"done":"send-email","id":"B"} | lookup:{"done":"lookup","id":"C"}',
    );
  });

  it('accepts decisions in request order too', async () => {
    const a = tollgate.getAgent('parallel-agent');
    const first = await a.generate('Again, in order.');
    expect(first.finishReason).toBe('suspended');
    const chargesBefore = charge.executions.length;
    const emailsBefore = email.executions.length;
    await chunksOf(await a.approveToolCall({ runId: first.runId, toolCallId: 'call-A' }));
    const done = await a.approveToolCallGenerate({ runId: first.runId, toolCallId: 'call-B' });
    expect(done.finishReason).toBe('stop');
    expect(charge.executions.length).toBe(chargesBefore + 1);
    expect(email.executions.length).toBe(emailsBefore + 1);
  });
});

/** Two gated calls in one step: `slow-approval` waits for ever, `quick-expiry` expires and declines. */
const twoGatedCalls: TurnPicker = (prompt) =>
  prompt.at(-1)?.role === 'tool'
    ? { text: 'Both answered.' }
    : {
        toolCalls: [
          { toolName: 'slow-approval', args: { id: 'S' }, toolCallId: 'call-S' },
          { toolName: 'quick-expiry', args: { id: 'Q' }, toolCallId: 'call-Q' },
        ],
      };

describe('a decline beside other waiting calls', () => {
  const slow = recordingTool('slow-approval', { requireApproval: true });
  const quickExecutions: unknown[] = [];
  const quick = createTool({
    id: 'quick-expiry',
    description: 'Gated; its approval expires after 1.5 s and declines.',
    inputSchema: z.object({ id: z.string() }),
    requireApproval: true,
    approval: { timeout: 1500, onTimeout: 'decline' },
    execute: async (input) => {
      quickExecutions.push(input);
      return { done: input.id };
    },
  });
  const both = recordingTool('quick-expiry', { requireApproval: true });
  const { agent: declining } = testAgent('decline-beside', [slow.tool, both.tool], twoGatedCalls);
  const { agent: expiring } = testAgent('expiry-beside', [slow.tool, quick], twoGatedCalls);
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([declining, expiring], 'decline-beside');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  it('ends the decline’s stream with a suspended finish while the other call waits', async () => {
    const a = tollgate.getAgent('decline-beside');
    const first = await a.generate('Do both.');
    expect(first.finishReason).toBe('suspended');

    const afterDecline = await a.declineToolCall({ runId: first.runId, toolCallId: 'call-Q' });
    const chunks = chunksOf(afterDecline);
    // Before the fix the stream never ended: the run was not announced idle after a decline.
    expect(await settlesWithin(chunks, 15_000)).toBe(true);
    expect((await chunks).map((c) => [c.type, c.payload])).toEqual([
      [
        'tool-result',
        expect.objectContaining({ toolCallId: 'call-Q', code: 'TOOL_CALL_DECLINED' }),
      ],
      ['finish', expect.objectContaining({ finishReason: 'suspended' })],
    ]);
    expect(await a.pendingToolCalls(first.runId)).toEqual([
      expect.objectContaining({ toolCallId: 'call-S' }),
    ]);

    const done = await a.approveToolCallGenerate({ runId: first.runId, toolCallId: 'call-S' });
    expect(done.finishReason).toBe('stop');
    expect(slow.executions).toHaveLength(1);
    expect(both.executions).toHaveLength(0);
  });

  it('ends an observer’s stream when an approval expires and declines beside a waiting call', async () => {
    const a = tollgate.getAgent('expiry-beside');
    const slowBefore = slow.executions.length;
    const stream = await a.stream('Do both.');
    const first = await chunksOf(stream);
    expect(first.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'suspended' } });

    const observed = chunksOf(await a.observe({ runId: stream.runId, offset: first.length }));
    expect(await settlesWithin(observed, 20_000)).toBe(true);
    expect((await observed).map((c) => [c.type, c.payload])).toEqual([
      ['tool-result', expect.objectContaining({ toolCallId: 'call-Q', code: 'APPROVAL_EXPIRED' })],
      ['finish', expect.objectContaining({ finishReason: 'suspended' })],
    ]);
    const done = await a.approveToolCallGenerate({ runId: stream.runId, toolCallId: 'call-S' });
    expect(done.finishReason).toBe('stop');
    expect(quickExecutions).toHaveLength(0);
    expect(slow.executions).toHaveLength(slowBefore + 1);
  });
});
