/**
 * Issue 27: a run whose starter hosts its agent, which does local work, describes the agent as a
 * local activity in its first workflow task (patch `tollgate-local-describe`). A worker of the
 * queue that does not host the agent refuses it, and the run describes the agent on the agent's
 * queue instead.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { agentTaskQueue } from '../src/common/wire.js';
import { Agent, createTool, Tollgate } from '../src/index.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import { workflowBundle } from '../src/worker.js';
import { LOCAL_DESCRIBE_PATCH, LOCAL_REFUSAL_PATCH } from '../src/workflows/patch-ids.js';
import { ONE_MARKER_2_PATCH } from '../src/workflows/patch-markers.js';
import {
  chunksOf,
  eventually,
  fleetHosts,
  gatedTestAgent,
  recordingTool,
  uniqueQueue,
} from './support/harness.js';
import { patchesOf } from './support/patch-markers.js';

/** A local-mode agent: a `local` lookup, then a gated delete (an activity), then an answer. */
function localAgent(id: string) {
  const lookup = recordingTool('lookup');
  const remove = recordingTool('delete-record', { requireApproval: true });
  const agent = new Agent({
    id,
    instructions: 'You are a test agent.',
    model: scriptedModel((prompt) => {
      const last = prompt.at(-1);
      if (last?.role !== 'tool') return { toolCalls: [{ toolName: 'lookup', args: { id: 'r1' } }] };
      const done = JSON.stringify(last.content).includes('delete-record');
      return done
        ? { text: 'Deleted.' }
        : { toolCalls: [{ toolName: 'delete-record', args: { id: 'r1' } }] };
    }, id),
    tools: { lookup: createTool({ ...lookup.tool, local: true }), 'delete-record': remove.tool },
    execution: { modelSteps: 'local' },
  });
  return { agent, lookups: lookup.executions, deletes: remove.executions };
}

/**
 * Where the run described its agent (the queues of its `describeAgent` activities, in order), every
 * activity it scheduled, and the patches it recorded.
 */
async function describesOf(client: Client, runId: string) {
  const { events } = await client.workflow.getHandle(runId).fetchHistory();
  const scheduled = (events ?? []).flatMap((event) => {
    const attributes = event.activityTaskScheduledEventAttributes;
    return attributes
      ? [{ type: attributes.activityType?.name, queue: attributes.taskQueue?.name }]
      : [];
  });
  const queues = scheduled
    .filter((each) => each.type === 'describeAgent')
    .map((each) => each.queue);
  const history = { events: events ?? [] };
  return { queues, scheduled, patches: patchesOf(history), history };
}

/** Replays a run's history against the current workflow code: a nondeterminism throws. */
async function replay(
  history: Parameters<typeof Worker.runReplayHistory>[1],
  runId: string,
): Promise<void> {
  await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, runId);
}

/**
 * A run of `alpha` that a worker without it takes first. Alpha's host publishes the agent, then
 * stops, so only beta's host polls when `starter` (made then) starts the run: its describe goes to
 * alpha's queue. `whileAway` checks what holds before a host of alpha comes back; then the run
 * parks, its call is approved, the run answers, and its history replays.
 */
async function approvedAfterFallback(
  fleet: ReturnType<typeof fleetHosts>,
  queue: string,
  hosts: { alpha: Agent; beta: Agent },
  starterOf: () => Tollgate,
  /** The patch that shows the run took the local describe: its own, or the one marker's. */
  describePatch: string,
  whileAway: () => void = () => undefined,
) {
  await (await fleet.host([hosts.alpha], queue)).shutdown();
  await fleet.host([hosts.beta], queue);
  const starter = fleet.own(starterOf());
  const client = await starter.client();
  const agent = starter.getAgent(hosts.alpha.id);
  const stream = await agent.stream('Delete r1');
  const agentQueue = agentTaskQueue(queue, hosts.alpha.id);
  // The worker without the agent refused the local describe: the run asks the agent's queue.
  await eventually(async () =>
    expect((await describesOf(client, stream.runId)).queues).toEqual([agentQueue]),
  );
  whileAway();
  await fleet.host([hosts.alpha], queue);

  const chunks = await chunksOf(stream);
  expect(chunks.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'suspended' } });
  const done = await agent.approveToolCallGenerate({ runId: stream.runId });
  expect(done).toMatchObject({ finishReason: 'stop', text: 'Deleted.' });
  const run = await describesOf(client, stream.runId);
  expect(run.patches).toContain(describePatch);
  await replay(run.history, stream.runId);
  return { run, agentQueue };
}

describe('the describe of a run doing local work', () => {
  const fleet = fleetHosts('local-describe');
  const { host } = fleet;
  afterAll(fleet.closeAll);

  it('is a local activity in the first workflow task when the starter hosts the agent', async () => {
    const queue = uniqueQueue('local-describe');
    const alpha = localAgent('ld-solo');
    const tollgate = await host([alpha.agent], queue);
    const agent = tollgate.getAgent('ld-solo');
    const parked = await agent.generate('Delete r1');
    expect(parked.finishReason).toBe('suspended');
    const done = await agent.approveToolCallGenerate({ runId: parked.runId });
    expect(done).toMatchObject({ finishReason: 'stop', text: 'Deleted.' });
    expect(alpha.lookups).toHaveLength(1);
    expect(alpha.deletes).toHaveLength(1);
    const run = await describesOf(await tollgate.client(), parked.runId);
    expect(run.queues).toEqual([]);
    expect(run.patches).toContain(LOCAL_DESCRIBE_PATCH);
    await replay(run.history, parked.runId);
  }, 60_000);

  it("falls back to the agent's queue when a worker without the agent took the run", async () => {
    const queue = uniqueQueue('local-describe-fleet');
    const alpha = localAgent('ld-alpha');
    const beta = gatedTestAgent('ld-beta');
    // The starter knows ld-alpha (it would host it) but runs no worker.
    const { run, agentQueue } = await approvedAfterFallback(
      fleet,
      queue,
      { alpha: alpha.agent, beta: beta.agent },
      () => new Tollgate({ agents: { 'ld-alpha': alpha.agent }, temporal: { taskQueue: queue } }),
      LOCAL_DESCRIBE_PATCH,
      () => expect(alpha.lookups).toHaveLength(0),
    );
    expect(alpha.lookups).toHaveLength(1);
    expect(alpha.deletes).toHaveLength(1);
    expect(beta.executions).toHaveLength(0);
    expect(run.queues).toEqual([agentQueue]);
    // Its next workflow task went to the same worker (sticky), which refused the stretch too: the
    // model steps ran on the agent's queue (patch tollgate-local-refusal-moves), then the delete.
    expect(run.patches).toContain(LOCAL_REFUSAL_PATCH);
    expect(run.scheduled).toEqual([
      { type: 'describeAgent', queue: agentQueue },
      { type: 'modelStep', queue: agentQueue },
      { type: 'executeTool', queue: agentQueue },
      { type: 'modelStep', queue: agentQueue },
      { type: 'executeTool', queue: agentQueue },
      { type: 'modelStep', queue: agentQueue },
    ]);
  }, 90_000);
});

describe('the describe of a run its runtime starts with one patch marker', () => {
  const fleet = fleetHosts('describe-here');
  const { host, own } = fleet;
  afterAll(fleet.closeAll);

  it('is a local activity for any agent, whoever starts the run; one marker per patch keeps the activity', async () => {
    const queue = uniqueQueue('describe-here');
    const gated = gatedTestAgent('dh-solo');
    await host([gated.agent], queue);
    // Clients that host no agent: the worker that takes the run's first task describes it.
    const one = own(new Tollgate({ temporal: { taskQueue: queue }, patchMarkers: 'one' }));
    const each = own(new Tollgate({ temporal: { taskQueue: queue } }));
    const client = await one.client();
    const runs = [];
    for (const starter of [one, each]) {
      const agent = starter.getAgent('dh-solo');
      const parked = await agent.generate('Delete rec-1');
      expect(parked.finishReason).toBe('suspended');
      expect(gated.executions).toHaveLength(runs.length);
      const done = await agent.approveToolCallGenerate({ runId: parked.runId });
      expect(done).toMatchObject({ finishReason: 'stop', text: 'Deleted.' });
      runs.push({ runId: parked.runId, ...(await describesOf(client, parked.runId)) });
    }
    expect(gated.executions).toHaveLength(2);
    const [here, activity] = runs;
    expect(here!.queues).toEqual([]);
    // Its one marker stands for the describe's patch, which records no marker of its own.
    expect(here!.patches).toEqual([ONE_MARKER_2_PATCH]);
    // A marker per patch would make the patches decided before the describe cost more than it saves.
    expect(activity!.queues).toEqual([queue]);
    expect(activity!.patches).not.toContain(LOCAL_DESCRIBE_PATCH);
    for (const run of runs) await replay(run.history, run.runId);
  }, 60_000);

  it("falls back to the agent's queue when the worker that took the run does not host the agent", async () => {
    const queue = uniqueQueue('describe-here-fleet');
    const alpha = gatedTestAgent('dh-alpha');
    const beta = gatedTestAgent('dh-beta');
    // A client that hosts no agent, whose runs record one marker.
    const { run, agentQueue } = await approvedAfterFallback(
      fleet,
      queue,
      { alpha: alpha.agent, beta: beta.agent },
      () => new Tollgate({ temporal: { taskQueue: queue }, patchMarkers: 'one' }),
      ONE_MARKER_2_PATCH,
    );
    expect(alpha.executions).toHaveLength(1);
    expect(beta.executions).toHaveLength(0);
    expect(run.scheduled).toEqual([
      { type: 'describeAgent', queue: agentQueue },
      { type: 'modelStep', queue: agentQueue },
      { type: 'executeTool', queue: agentQueue },
      { type: 'modelStep', queue: agentQueue },
    ]);
  }, 90_000);
});
