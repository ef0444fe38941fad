/**
 * Issue 26.1: on one task queue, a worker that does not host a run's agent never receives the
 * run's model steps or tool calls (they go to the agent's own queue), so a fleet of teams or of
 * releases mid-deploy completes every run; while no host polls, a decision is refused, typed,
 * before anything is recorded, and the call runs once when a host returns.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { Tollgate } from '../src/index.js';
import {
  eventually,
  gatedTestAgent,
  fleetHosts,
  uniqueQueue,
  untilNoHostPolls,
} from './support/harness.js';

describe('a fleet of workers hosting different agents on one task queue', () => {
  const { host, own, closeAll } = fleetHosts('fleet');
  afterAll(closeAll);

  it('completes 50 approved runs of each agent, none failing with AGENT_NOT_FOUND', async () => {
    const queue = uniqueQueue('fleet');
    const alpha = gatedTestAgent('fleet-alpha');
    const beta = gatedTestAgent('fleet-beta');
    const alphaWorker = await host([alpha.agent], queue);
    await host([beta.agent], queue);

    const runOne = async (agentId: string) => {
      const agent = alphaWorker.getAgent(agentId);
      const parked = await agent.generate('delete rec-1');
      expect([agentId, parked.finishReason, parked.error]).toEqual([
        agentId,
        'suspended',
        undefined,
      ]);
      const done = await agent.approveToolCallGenerate({ runId: parked.runId });
      return [agentId, done.finishReason, done.errorCode ?? null];
    };
    const outcomes: unknown[] = [];
    const ids = Array.from({ length: 50 }, () => ['fleet-alpha', 'fleet-beta']).flat();
    for (let i = 0; i < ids.length; i += 20)
      outcomes.push(...(await Promise.all(ids.slice(i, i + 20).map(runOne))));

    expect(outcomes).toEqual(ids.map((agentId) => [agentId, 'stop', null]));
    expect(alpha.executions).toHaveLength(50);
    expect(beta.executions).toHaveLength(50);
  }, 300_000);

  it('refuses a decision while no worker hosts the agent, then runs the call once on a release that does', async () => {
    const queue = uniqueQueue('fleet-roll');
    const parked = gatedTestAgent('fleet-parked');
    const other = gatedTestAgent('fleet-other');
    const release1 = await host([parked.agent], queue);
    const run = await release1.getAgent('fleet-parked').generate('delete rec-1');
    expect(run.finishReason).toBe('suspended');
    await release1.shutdown();

    // Release 2 polls the same queue but hosts only another agent.
    await host([other.agent], queue);
    const decider = own(
      new Tollgate({ temporal: { taskQueue: queue }, decisions: { workerSeenWithin: 5000 } }),
    );
    const history = async () =>
      (await (await decider.client()).workflow.getHandle(run.runId).fetchHistory()).events!.length;
    // Temporal lists release 1's pollers of the agent's queue until they are older than
    // `workerSeenWithin`; a decision sent before then is applied and its call waits for a host.
    await untilNoHostPolls(await decider.client(), queue, 'fleet-parked', 5000);
    const refused = await decider
      .getAgent('fleet-parked')
      .approveToolCall({ runId: run.runId })
      .then(
        () => undefined,
        (e: unknown) => e as { code: string; message: string },
      );
    expect(refused).toMatchObject({ code: 'WORKER_UNAVAILABLE' });
    expect(refused?.message).toContain('No worker hosting agent "fleet-parked"');
    const eventsAfterRefusal = await history();
    expect(parked.executions).toHaveLength(0);

    // A refused decision recorded nothing; release 3 hosts the agent again.
    await host([parked.agent], queue);
    expect(await history()).toBe(eventsAfterRefusal);
    // Until Temporal has seen release 3 poll, the decision is still refused, and not sent.
    const approved = await eventually(
      () => decider.getAgent('fleet-parked').approveToolCall({ runId: run.runId }),
      30_000,
    );
    const done = { finishReason: await approved.finishReason };
    expect(done.finishReason).toBe('stop');
    expect(parked.executions).toHaveLength(1);
  }, 180_000);
});
