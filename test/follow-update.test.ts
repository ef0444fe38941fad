/**
 * `follow: 'update'` (docs/streams.md "Following by update"): a decision's `…Generate()` from a
 * process without the run's worker asks the run for the log up to its next `finish` with one
 * update, instead of long-polling the run's history. The outputs are those of a history follower;
 * where the run does not answer in full (too many followers, a continue-as-new), the follower
 * reads history from where the answer stopped.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowUpdateStage, type Client } from '@temporalio/client';
import { Agent, Tollgate, TollgateError } from '../src/index.js';
import type { ChunkSlice } from '../src/common/chunks.js';
import { followUpdate } from '../src/common/messages.js';
import type { AgentOutput } from '../src/stream/agent-output.js';
import { scriptedModel, type TurnPicker } from '../src/testing/index.js';
import { MAX_WAITING_FOLLOWERS } from '../src/workflows/follow.js';
import { recordCalls, type ClientCall } from '../bench/support/client-calls.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { FOLLOW_ACCEPT_MS } from '../src/temporal-client/follow-update.js';
import {
  eventually,
  executionsOf,
  gatedTestAgent,
  hostAgents,
  logByQueries,
  recordingTool,
  uniqueId,
  uniqueQueue,
} from './support/harness.js';

/** Steps 1–3 count, step 4 deletes rec-1 (gated), 5–9 count, 10 deletes rec-2, 11 answers. */
const longScript: TurnPicker = (prompt) => {
  const step = prompt.filter((message) => message.role === 'tool').length + 1;
  if (step === 11) return { text: 'All done.' };
  if (step === 4 || step === 10)
    return { toolCalls: [{ toolName: 'delete-record', args: { id: `rec-${step}` } }] };
  return { text: `Step ${step}. `, toolCalls: [{ toolName: 'count', args: { id: `${step}` } }] };
};

/**
 * What two releases must agree on: all of the output but the run's id, its usage and the numbers
 * the shared scripted model gives its calls.
 */
function comparable(output: AgentOutput): unknown {
  const { runId: _runId, usage: _usage, ...rest } = output;
  const text = JSON.stringify(rest).replaceAll(output.runId, '<run>');
  return JSON.parse(text.replace(/call_\d+/g, 'call_n'));
}

/** The record ids a recording tool ran with, in order. */
const idsOf = (executions: Array<{ input: unknown }>) =>
  executions.map((execution) => (execution.input as { id: string }).id);

describe("follow: 'update'", () => {
  const queue = uniqueQueue('follow-update');
  const gated = gatedTestAgent('follow-gated');
  const count = recordingTool('count');
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const long = new Agent({
    id: 'follow-long',
    model: scriptedModel(longScript, 'follow-long'),
    tools: { count: count.tool, 'delete-record': deleteRecord.tool },
    defaultOptions: { maxSteps: 20 },
    history: { continueAfterEvents: 40 },
  });
  let worker: Tollgate;
  /** Processes without the worker: nothing is relayed to them. */
  let byUpdate: Tollgate;
  let byHistory: Tollgate;
  let calls: ClientCall[];
  let client: Client;
  const sent = (method: string, from: number) =>
    calls.slice(from).filter((call) => call.method === method).length;

  beforeAll(async () => {
    worker = new Tollgate({
      agents: { 'follow-gated': gated.agent, 'follow-long': long },
      temporal: { taskQueue: queue },
    });
    await worker.startWorker();
    byUpdate = new Tollgate({ temporal: { taskQueue: queue }, follow: 'update' });
    byHistory = new Tollgate({ temporal: { taskQueue: queue } });
    client = await byUpdate.client();
    calls = recordCalls(client);
  });
  afterAll(async () => {
    await byUpdate?.shutdown();
    await byHistory?.shutdown();
    await worker?.shutdown();
  });

  async function parked(via: Tollgate, agentId: string): Promise<string> {
    const output = await via.getAgent(agentId).generate('Go.', { runId: uniqueId(agentId) });
    expect(output.finishReason).toBe('suspended');
    return output.runId;
  }

  it('releases a run with one update and no history read, with the output a history follower gets', async () => {
    const viaUpdate = await parked(byUpdate, 'follow-gated');
    const viaHistory = await parked(byHistory, 'follow-gated');
    const before = gated.executions.length;
    const from = calls.length;
    const released = await byUpdate.getAgent('follow-gated').approveToolCallGenerate({
      runId: viaUpdate,
    });
    expect(sent('getWorkflowExecutionHistory', from)).toBe(0);
    expect(sent('queryWorkflow', from)).toBe(0);
    expect(sent('updateWorkflowExecution', from)).toBe(2);
    expect(released).toMatchObject({ finishReason: 'stop', text: 'Deleted.' });
    expect(gated.executions.length - before).toBe(1);
    const reference = await byHistory.getAgent('follow-gated').approveToolCallGenerate({
      runId: viaHistory,
    });
    expect(comparable(released)).toEqual(comparable(reference));
    expect(gated.executions.length - before).toBe(2);
  });

  it('starts a run with its follower and parks it with no history read, with the output a history follower gets', async () => {
    const from = calls.length;
    const parkedByUpdate = await byUpdate.getAgent('follow-gated').generate('Delete it.');
    expect(sent('executeMultiOperation', from)).toBe(1);
    expect(sent('startWorkflowExecution', from)).toBe(0);
    expect(sent('getWorkflowExecutionHistory', from)).toBe(0);
    expect(parkedByUpdate.finishReason).toBe('suspended');
    expect(parkedByUpdate.suspendPayload).toMatchObject({ args: { id: 'rec-1' } });
    const reference = await byHistory.getAgent('follow-gated').generate('Delete it.');
    expect(comparable(parkedByUpdate)).toEqual(comparable(reference));
    // A taken run id is refused as before.
    const taken = byUpdate.getAgent('follow-gated').generate('Again.', {
      runId: parkedByUpdate.runId,
    });
    await expect(taken).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });

  it('reads history on from where the run let its followers go before a continue-as-new', async () => {
    const runId = await parked(byUpdate, 'follow-long');
    const executions = await executionsOf(client, runId);
    const from = calls.length;
    const released = await byUpdate.getAgent('follow-long').approveToolCallGenerate({ runId });
    expect(await executionsOf(client, runId)).toBeGreaterThan(executions);
    // The answer stopped at the continue-as-new; history holds the rest.
    expect(sent('getWorkflowExecutionHistory', from)).toBeGreaterThan(0);
    expect(released.finishReason).toBe('suspended');
    expect(released.suspendPayload).toMatchObject({ args: { id: 'rec-10' } });
    expect(released.text).toBe('Step 5. Step 6. Step 7. Step 8. Step 9. ');
    expect(idsOf(count.executions)).toEqual(['1', '2', '3', '5', '6', '7', '8', '9']);
    const done = await byUpdate.getAgent('follow-long').approveToolCallGenerate({ runId });
    expect(done).toMatchObject({ finishReason: 'stop', text: 'All done.' });
    expect(idsOf(deleteRecord.executions)).toEqual(['rec-4', 'rec-10']);
  });

  it('keeps followers within the limit: one over it reads history, and refused ones leave no trace', async () => {
    const runId = await parked(byUpdate, 'follow-gated');
    const handle = client.workflow.getHandle(runId);
    const end = (await logByQueries(client, runId)).length;
    const waiting = await Promise.all(
      Array.from({ length: MAX_WAITING_FOLLOWERS }, () =>
        handle.startUpdate(followUpdate, {
          args: [{ offset: end }],
          waitForStage: WorkflowUpdateStage.ACCEPTED,
        }),
      ),
    );
    // A follower outside the log is refused before history.
    await expect(
      handle.executeUpdate(followUpdate, { args: [{ offset: end + 5 }] }),
    ).rejects.toMatchObject({
      cause: { type: 'TollgateFollowRefused', message: expect.stringMatching(/outside this/) },
    });
    const from = calls.length;
    const released = await byUpdate.getAgent('follow-gated').approveToolCallGenerate({ runId });
    expect(released).toMatchObject({ finishReason: 'stop', text: 'Deleted.' });
    // Its own follower was one too many: it read history instead.
    expect(sent('getWorkflowExecutionHistory', from)).toBeGreaterThan(0);
    const log = await logByQueries(client, runId);
    for (const follower of waiting) {
      const answer: ChunkSlice = await follower.result();
      expect(answer.offset).toBe(end);
      expect(answer.chunks).toEqual(log.slice(end, end + answer.chunks.length));
      expect(answer.chunks.at(-1)).toMatchObject({
        type: 'finish',
        payload: { finishReason: 'stop' },
      });
    }
    const history = await handle.fetchHistory();
    const accepted = history.events!.filter(
      (event) => event.workflowExecutionUpdateAcceptedEventAttributes,
    );
    // The run's start's follower, the four and the approval; neither refused one.
    expect(accepted).toHaveLength(MAX_WAITING_FOLLOWERS + 2);
  });

  it('follows a run started while no worker polls by history, once a worker takes it', async () => {
    const awayQueue = uniqueQueue('follow-away');
    const away = gatedTestAgent('follow-away');
    const first = await hostAgents([away.agent], 'follow-away', awayQueue);
    const front = new Tollgate({
      temporal: { taskQueue: awayQueue },
      decisions: { workerSeenWithin: 2000 },
      follow: 'update',
    });
    let second: Tollgate | undefined;
    try {
      await first.shutdown();
      await eventually(async () => expect((await front.workerPollers()).pollers).toBe(0), 30_000);
      const began = performance.now();
      const parking = front.getAgent('follow-away').generate('Delete it.');
      await sleep(FOLLOW_ACCEPT_MS + 1_000);
      second = await hostAgents([away.agent], 'follow-away', awayQueue);
      const output = await parking;
      expect(performance.now() - began).toBeGreaterThan(FOLLOW_ACCEPT_MS);
      expect(output).toMatchObject({ finishReason: 'suspended' });
      expect(away.executions).toHaveLength(0);
      const released = await front.getAgent('follow-away').approveToolCallGenerate({
        runId: output.runId,
      });
      expect(released).toMatchObject({ finishReason: 'stop', text: 'Deleted.' });
      expect(away.executions).toHaveLength(1);
    } finally {
      await front.shutdown();
      await second?.shutdown();
    }
  });

  it('refuses an unknown follow setting', () => {
    expect(() => new Tollgate({ follow: 'sometimes' as never })).toThrow(
      new TollgateError(
        'INVALID_OPTIONS',
        `follow must be 'history' or 'update', not "sometimes".`,
      ),
    );
  });
});
