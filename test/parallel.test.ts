import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tollgate } from '../src/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import { chunksOf, hostAgents, recordingTool, testAgent } from './support/harness.js';

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
