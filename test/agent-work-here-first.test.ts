/**
 * Issue 27: a routed run schedules its describe, model steps and tool calls on its own task queue
 * first, where Temporal hands them to the worker that completed the workflow task (eager
 * dispatch). A worker without the agent refuses the attempt before anything runs; the run then
 * sends that work, and all its later agent work, to the agent's own queue.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { agentTaskQueue } from '../src/common/wire.js';
import {
  chunksOf,
  eventually,
  gatedTestAgent,
  fleetHosts,
  uniqueQueue,
} from './support/harness.js';

const AGENT_WORK = new Set(['describeAgent', 'modelStep', 'executeTool']);

/** The queue of every agent activity the run scheduled, in order, and its refused attempts. */
async function agentWorkOf(client: Client, runId: string) {
  const { events } = await client.workflow.getHandle(runId).fetchHistory();
  const scheduled: Array<{ type: string; queue: string }> = [];
  let refused = 0;
  for (const event of events ?? []) {
    const attributes = event.activityTaskScheduledEventAttributes;
    const type = attributes?.activityType?.name ?? '';
    if (attributes && AGENT_WORK.has(type))
      scheduled.push({ type, queue: attributes.taskQueue?.name ?? '' });
    const failure = event.activityTaskFailedEventAttributes?.failure;
    if (failure?.applicationFailureInfo?.type === 'tollgate.AGENT_NOT_FOUND') refused++;
  }
  return { scheduled, refused };
}

describe("agent work on the run's own queue first", () => {
  const { host, closeAll } = fleetHosts('here-first');
  afterAll(closeAll);

  it("runs a host's describe, model steps and approved call on the run's own queue, the tool once", async () => {
    const queue = uniqueQueue('here-first');
    const gated = gatedTestAgent('here-solo');
    const tollgate = await host([gated.agent], queue);
    const agent = tollgate.getAgent('here-solo');

    const parked = await agent.generate('delete rec-1');
    expect(parked.finishReason).toBe('suspended');
    const done = await agent.approveToolCallGenerate({ runId: parked.runId });

    expect(done.finishReason).toBe('stop');
    expect(gated.executions).toHaveLength(1);
    const work = await agentWorkOf(await tollgate.client(), parked.runId);
    expect(work.refused).toBe(0);
    expect(work.scheduled.map((each) => each.type)).toEqual([
      'describeAgent',
      'modelStep',
      'executeTool',
      'modelStep',
    ]);
    expect(new Set(work.scheduled.map((each) => each.queue))).toEqual(new Set([queue]));
  }, 60_000);

  it("falls back to the agent's queue when a worker without the agent took the run, once, and stays there", async () => {
    const queue = uniqueQueue('here-first-fleet');
    const alpha = gatedTestAgent('here-alpha');
    const beta = gatedTestAgent('here-beta');
    // here-alpha's host publishes the agent, then stops: only a worker without it polls when the
    // run starts, and takes its first task.
    const first = await host([alpha.agent], queue);
    await first.shutdown();
    const betaWorker = await host([beta.agent], queue);
    const client = await betaWorker.client();
    const stream = await betaWorker.getAgent('here-alpha').stream('delete rec-1');
    await eventually(async () => expect((await agentWorkOf(client, stream.runId)).refused).toBe(1));
    await host([alpha.agent], queue);

    const chunks = await chunksOf(stream);
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'suspended' } });
    const done = await betaWorker
      .getAgent('here-alpha')
      .approveToolCallGenerate({ runId: stream.runId });

    expect(done.finishReason).toBe('stop');
    expect(alpha.executions).toHaveLength(1);
    expect(beta.executions).toHaveLength(0);
    const work = await agentWorkOf(client, stream.runId);
    expect(work.refused).toBe(1);
    const agentQueue = agentTaskQueue(queue, 'here-alpha');
    // The refused describe on the run's queue, then everything on the agent's queue.
    expect(work.scheduled).toEqual([
      { type: 'describeAgent', queue },
      { type: 'describeAgent', queue: agentQueue },
      { type: 'modelStep', queue: agentQueue },
      { type: 'executeTool', queue: agentQueue },
      { type: 'modelStep', queue: agentQueue },
    ]);
  }, 90_000);
});
