import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tollgate } from '../src/index.js';
import { toolCallFingerprint } from '../src/index.js';
import { chunksOf, hostAgents, recordingTool, testAgent, typesOf } from './support/harness.js';

describe('a gated tool call', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent, model } = testAgent('approval-agent', [deleteRecord.tool], (prompt) => {
    const last = prompt.at(-1);
    if (last?.role === 'tool') return { text: 'All done.' };
    return { text: 'Deleting it.', toolCalls: [{ toolName: 'delete-record', args: { id: 'abc-123' } }] };
  });
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'approval');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  it('waits for approval, then executes the tool exactly once', async () => {
    const a = tollgate.getAgent('approval-agent');
    const before = deleteRecord.executions.length;
    const stream = await a.stream('Delete record abc-123');
    const chunks = await chunksOf(stream);
    expect(typesOf(chunks)).toEqual(['start', 'step-start', 'text-delta', 'tool-call', 'step-finish', 'tool-call-approval', 'finish']);
    const approval = chunks.find((c) => c.type === 'tool-call-approval');
    expect(approval?.payload).toMatchObject({
      toolName: 'delete-record',
      args: { id: 'abc-123' },
      fingerprint: toolCallFingerprint('delete-record', { id: 'abc-123' }),
    });
    expect(await stream.finishReason).toBe('suspended');
    expect(deleteRecord.executions.length).toBe(before);

    const approved = await a.approveToolCall({ runId: stream.runId });
    const after = await chunksOf(approved);
    expect(typesOf(after)).toEqual(['tool-result', 'step-start', 'text-delta', 'step-finish', 'finish']);
    expect(await approved.text).toBe('All done.');
    expect(await approved.finishReason).toBe('stop');
    expect(deleteRecord.executions.length).toBe(before + 1);
    expect(deleteRecord.executions.at(-1)?.idempotencyKey).toBe(`${stream.runId}:${(approval?.payload as { toolCallId: string }).toolCallId}`);
    expect(model.prompts.length).toBeGreaterThan(1);
  });
});
