import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import type { Tollgate } from '../src/index.js';
import { SIGNALS, UPDATES } from '../src/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import { chunksOf, hostAgents, recordingTool, testAgent } from './support/harness.js';

const deleteOnce: TurnPicker = (prompt) =>
  prompt.at(-1)?.role === 'tool'
    ? { text: 'finished' }
    : { toolCalls: [{ toolName: 'delete-record', args: { id: 'r1' } }] };

describe('decisions (SPEC §5, §8)', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent('decision-agent', [deleteRecord.tool], deleteOnce);
  const { agent: slowAgent } = testAgent(
    'slow-agent',
    [],
    [{ text: ['slow', ' answer'], delayMs: 1500 }],
  );
  let tollgate: Tollgate;
  let plain: Client;

  beforeAll(async () => {
    tollgate = await hostAgents([agent, slowAgent], 'decisions');
    plain = new Client({
      connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }),
      namespace: process.env.TEMPORAL_NAMESPACE!,
    });
  });
  afterAll(async () => {
    await tollgate.shutdown();
    await plain.connection.close();
  });

  const a = () => tollgate.getAgent('decision-agent');

  async function parkedRun() {
    const output = await a().generate('delete r1');
    expect(output.finishReason).toBe('suspended');
    return {
      runId: output.runId,
      toolCallId: output.suspendPayload!.toolCallId,
      fingerprint: output.suspendPayload!.fingerprint!,
    };
  }

  async function updateEvents(runId: string): Promise<number> {
    const history = await plain.workflow.getHandle(runId).fetchHistory();
    return (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)
      .length;
  }

  async function signalEvents(runId: string, expected: number): Promise<number> {
    let count = 0;
    for (let attempt = 0; attempt < 50 && count < expected; attempt++) {
      const history = await plain.workflow.getHandle(runId).fetchHistory();
      count = (history.events ?? []).filter(
        (e) => e.workflowExecutionSignaledEventAttributes,
      ).length;
      if (count < expected) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return count;
  }

  it('rejects a wrong fingerprint and leaves the run waiting, then accepts the right one', async () => {
    const run = await parkedRun();
    await expect(
      a().approveToolCall({ runId: run.runId, fingerprint: 'f'.repeat(64) }),
    ).rejects.toMatchObject({
      name: 'TollgateError',
      code: 'FINGERPRINT_MISMATCH',
    });
    expect(await updateEvents(run.runId)).toBe(0);
    expect(await a().pendingToolCalls(run.runId)).toHaveLength(1);
    expect(deleteRecord.executions).toHaveLength(0);
    const done = await a().approveToolCallGenerate({
      runId: run.runId,
      fingerprint: run.fingerprint,
    });
    expect(done.finishReason).toBe('stop');
    expect(deleteRecord.executions).toHaveLength(1);
  });

  it('refuses an unknown call, a second decision, and decisions for a finished run', async () => {
    const run = await parkedRun();
    await expect(
      a().approveToolCall({ runId: run.runId, toolCallId: 'nope' }),
    ).rejects.toMatchObject({ code: 'TOOL_CALL_NOT_PENDING' });
    const executed = deleteRecord.executions.length;
    const first = await a().approveToolCall({ runId: run.runId, toolCallId: run.toolCallId });
    await expect(
      a().declineToolCall({ runId: run.runId, toolCallId: run.toolCallId }),
    ).rejects.toMatchObject({
      code: expect.stringMatching(/TOOL_CALL_ALREADY_DECIDED|RUN_FINISHED/),
    });
    expect(await first.finishReason).toBe('stop');
    expect(deleteRecord.executions.length).toBe(executed + 1);
    await expect(
      a().approveToolCall({ runId: run.runId, toolCallId: run.toolCallId }),
    ).rejects.toMatchObject({ code: 'RUN_FINISHED' });
    await expect(a().approveToolCall({ runId: run.runId })).rejects.toMatchObject({
      code: 'RUN_FINISHED',
    });
  });

  it('refuses a second decision for the same call while the run is still going', async () => {
    const run = await parkedRun();
    const handle = plain.workflow.getHandle(run.runId);
    // Two decisions in one batch: the second reaches the validator after the first was applied.
    const [approved, again] = await Promise.allSettled([
      handle.executeUpdate(UPDATES.approveToolCall, { args: [{ toolCallId: run.toolCallId }] }),
      handle.executeUpdate(UPDATES.declineToolCall, { args: [{ toolCallId: run.toolCallId }] }),
    ]);
    const outcomes = [approved.status, again.status].sort();
    expect(outcomes).toEqual(['fulfilled', 'rejected']);
    const failed = (approved.status === 'rejected' ? approved : again) as PromiseRejectedResult;
    expect(String(failed.reason?.cause?.type)).toMatch(
      /tollgate\.(TOOL_CALL_ALREADY_DECIDED|TOOL_CALL_NOT_PENDING|RUN_FINISHED)/,
    );
  });

  it('says there is nothing to decide when no call waits, and names a missing run', async () => {
    const slow = await tollgate.getAgent('slow-agent').stream('take your time');
    await expect(
      tollgate.getAgent('slow-agent').approveToolCall({ runId: slow.runId }),
    ).rejects.toMatchObject({ code: 'NO_PENDING_TOOL_CALL' });
    expect(await slow.finishReason).toBe('stop');
    await expect(a().approveToolCall({ runId: 'run-that-does-not-exist' })).rejects.toMatchObject({
      code: 'RUN_NOT_FOUND',
    });
  });

  it('rejects malformed update input before it reaches history', async () => {
    const run = await parkedRun();
    const handle = plain.workflow.getHandle(run.runId);
    await expect(
      handle.executeUpdate(UPDATES.approveToolCall, { args: [{ toolCallId: 42 }] }),
    ).rejects.toMatchObject({
      cause: { type: 'tollgate.INVALID_DECISION' },
    });
    await expect(
      handle.executeUpdate(UPDATES.approveToolCall, { args: [{ approved: true }] }),
    ).rejects.toMatchObject({
      cause: { type: 'tollgate.INVALID_DECISION', message: expect.stringContaining('"approved"') },
    });
    await expect(
      handle.executeUpdate(UPDATES.resumeToolCall, { args: [{ resumeData: {} }] }),
    ).rejects.toMatchObject({
      cause: { type: 'tollgate.WRONG_DECISION_KIND' },
    });
    expect(await updateEvents(run.runId)).toBe(0);
    await a().declineToolCall({ runId: run.runId });
  });

  it('completes a run approved by a raw `approve` signal from a plain Temporal client', async () => {
    const run = await parkedRun();
    const executed = deleteRecord.executions.length;
    const handle = plain.workflow.getHandle(run.runId);
    await handle.signal(SIGNALS.approve, {
      toolCallId: run.toolCallId,
      decidedBy: { id: 'billing-service' },
    });
    const result = await handle.result();
    expect(result).toMatchObject({ finishReason: 'stop', text: 'finished' });
    expect(deleteRecord.executions.length).toBe(executed + 1);
  });

  it('records a bad signal as a no-op: the run keeps waiting and takes a good decision after', async () => {
    const run = await parkedRun();
    const handle = plain.workflow.getHandle(run.runId);
    await handle.signal(SIGNALS.approve, { toolCallId: run.toolCallId, fingerprint: 'wrong' });
    await handle.signal(SIGNALS.decline, 'not an object');
    // Both signals reach history (a signal that lands during a workflow task is written after it).
    await expect(signalEvents(run.runId, 2)).resolves.toBe(2);
    expect(await a().pendingToolCalls(run.runId)).toEqual([
      expect.objectContaining({ toolCallId: run.toolCallId }),
    ]);
    const executed = deleteRecord.executions.length;
    await handle.signal(SIGNALS.decline, { toolCallId: run.toolCallId, reason: 'by signal' });
    expect(await handle.result()).toMatchObject({ finishReason: 'stop' });
    expect(deleteRecord.executions.length).toBe(executed);
  });

  it("refuses a decision sent through another agent's handle, naming only what was sent", async () => {
    const run = await parkedRun();
    await expect(
      tollgate.getAgent('slow-agent').approveToolCall({ runId: run.runId }),
    ).rejects.toMatchObject({
      code: 'RUN_NOT_FOUND',
      message: `No run with id "${run.runId}" exists for agent "slow-agent".`,
    });
    expect(await a().pendingToolCalls(run.runId)).toHaveLength(1);
    await a().declineToolCall({ runId: run.runId });
  });

  it('continues the stream of the decided run from the decision on', async () => {
    const run = await parkedRun();
    const continued = await a().approveToolCall({ runId: run.runId, toolCallId: run.toolCallId });
    const chunks = await chunksOf(continued);
    expect(chunks[0]).toMatchObject({
      type: 'tool-result',
      payload: { toolCallId: run.toolCallId },
    });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'stop' } });
  });
});
