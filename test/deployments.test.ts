/**
 * Issue 26.2: Temporal Worker Deployments. A pinned run finishes on the build it started on
 * while a newer build takes new runs; an auto-upgrade run moves to the current build at its next
 * workflow task; `tollgate.deployments` reports each build with the runs pinned to it and refuses
 * to retire one that runs still need; a decision for a run whose build no longer polls is refused,
 * typed and naming the build, before anything is recorded.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Tollgate, type Agent } from '../src/index.js';
import type { Versioning } from '../src/worker-settings.js';
import proto from '@temporalio/proto';
import { agentDirectoryId, agentTaskQueue } from '../src/common/wire.js';
import { describeDeployment, describeVersion } from '../src/temporal-client/deployment-versions.js';
import type { DeploymentReport } from '../src/temporal-client/deployments.js';
import { recentPollers } from '../src/temporal-client/worker-pollers.js';
import { cli } from './support/cli.js';
import { eventually, gatedTestAgent, uniqueQueue } from './support/harness.js';

describe('Worker Deployments', () => {
  const opened: Tollgate[] = [];
  afterAll(async () => {
    for (const tollgate of opened) await tollgate.shutdown().catch(() => undefined);
  });

  async function build(
    agents: Agent[],
    taskQueue: string,
    deployment: { name: string; buildId: string },
    versioning: Versioning,
  ): Promise<Tollgate> {
    const tollgate = new Tollgate({
      agents: Object.fromEntries(agents.map((agent) => [agent.id, agent])),
      temporal: { taskQueue },
      worker: { deployment, versioning },
    });
    opened.push(tollgate);
    await tollgate.startWorker();
    return tollgate;
  }

  const runIdsOf = (executions: { idempotencyKey: string }[]) =>
    executions.map((execution) => execution.idempotencyKey.split(':')[0]);

  it('pins a run to its build while the next build takes new runs, and reports who needs which build', async () => {
    const queue = uniqueQueue('deploy-pinned');
    const name = `tg-${randomUUID().slice(0, 8)}`;
    const onA = gatedTestAgent('deploy-agent');
    const onB = gatedTestAgent('deploy-agent');
    const releaseA = await build([onA.agent], queue, { name, buildId: 'A' }, 'pinned');
    // The first build of a deployment becomes current by itself.
    expect((await releaseA.deployments.report(name))[0]).toMatchObject({ currentBuildId: 'A' });

    const agentA = releaseA.getAgent('deploy-agent');
    const first = await agentA.generate('delete rec-1');
    const stays = await agentA.generate('delete rec-1');
    expect([first.finishReason, stays.finishReason]).toEqual(['suspended', 'suspended']);

    const releaseB = await build([onB.agent], queue, { name, buildId: 'B' }, 'pinned');
    // Ramp first (a share of new runs), then make it current.
    await releaseB.deployments.ramp(name, 'B', 25);
    const [ramping] = await releaseB.deployments.report(name);
    expect(ramping).toMatchObject({ currentBuildId: 'A', rampingBuildId: 'B' });
    expect(ramping!.versions.find((version) => version.buildId === 'B')).toMatchObject({
      status: 'ramping',
      rampPercent: 25,
    });
    await releaseB.deployments.setCurrent(name, 'B');
    const second = await releaseB.getAgent('deploy-agent').generate('delete rec-1');
    expect(second.finishReason).toBe('suspended');

    const report = await eventually(async () => {
      const [deployment] = await releaseB.deployments.report(name);
      const a = deployment?.versions.find((version) => version.buildId === 'A');
      if (a?.openRuns !== 2) throw new Error(`build A has ${a?.openRuns} open runs`);
      return deployment!;
    });
    expect(report.currentBuildId).toBe('B');
    expect(report.versions.find((version) => version.buildId === 'A')).toMatchObject({
      status: 'draining',
      openRuns: 2,
      parkedRuns: 2,
      retirable: false,
    });
    expect(report.versions.find((version) => version.buildId === 'B')).toMatchObject({
      status: 'current',
      openRuns: 1,
      retirable: false,
    });
    await expect(releaseB.deployments.retire(name, 'A')).rejects.toMatchObject({
      code: 'VERSION_NOT_RETIRABLE',
    });
    await expect(releaseB.deployments.retire(name, 'B')).rejects.toMatchObject({
      code: 'VERSION_NOT_RETIRABLE',
    });
    // The agent directory entry is a record, not a run: it follows the current build.
    const entry = await (
      await releaseB.client()
    ).workflow
      .getHandle(agentDirectoryId(queue, 'deploy-agent'))
      .describe();
    expect(entry.raw.workflowExecutionInfo?.versioningInfo?.behavior).toBe(
      proto.temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE,
    );
    // Routing changes need `admin`.
    await expect(
      releaseB.deployments.setCurrent(name, 'A', { scope: { actions: ['decide'] } }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });

    // Each approved call runs on the build its run is pinned to, once.
    const agentB = releaseB.getAgent('deploy-agent');
    expect((await agentB.approveToolCallGenerate({ runId: first.runId })).finishReason).toBe(
      'stop',
    );
    expect((await agentB.approveToolCallGenerate({ runId: second.runId })).finishReason).toBe(
      'stop',
    );
    expect(runIdsOf(onA.executions)).toEqual([first.runId]);
    expect(runIdsOf(onB.executions)).toEqual([second.runId]);

    // With build A stopped, a decision for the run pinned to it is refused and nothing recorded.
    await releaseA.shutdown();
    const decider = new Tollgate({
      temporal: { taskQueue: queue },
      decisions: { workerSeenWithin: 5000 },
    });
    opened.push(decider);
    const client = await decider.client();
    const events = async () =>
      (await client.workflow.getHandle(stays.runId).fetchHistory()).events!.length;
    const before = await events();
    // Temporal lists build A's pollers until they are older than `workerSeenWithin`.
    await eventually(async () => {
      const pollers = await recentPollers(client, queue, 5000);
      const ofA = [...pollers.values()].filter((poller) => poller.deployment?.buildId === 'A');
      if (ofA.length > 0) throw new Error('build A still polls');
    }, 60_000);
    const refused = await decider
      .getAgent('deploy-agent')
      .approveToolCall({ runId: stays.runId })
      .then(
        () => undefined,
        (e: unknown) => e as { code: string; message: string },
      );
    expect(refused?.code).toBe('WORKER_UNAVAILABLE');
    expect(refused?.message).toContain(`build A of deployment ${name}`);
    expect(await events()).toBe(before);
    expect(onA.executions).toHaveLength(1);

    // Build A again: the parked run goes on where it started, once.
    const againA = gatedTestAgent('deploy-agent');
    await build([againA.agent], queue, { name, buildId: 'A' }, 'pinned');
    const approved = await eventually(() => agentB.approveToolCall({ runId: stays.runId }), 30_000);
    expect(await approved.finishReason).toBe('stop');
    expect(runIdsOf(againA.executions)).toEqual([stays.runId]);
    expect(onB.executions).toHaveLength(1);

    const drained = await eventually(async () => {
      const [deployment] = await releaseB.deployments.report(name);
      const a = deployment!.versions.find((version) => version.buildId === 'A')!;
      if (a.openRuns !== 0) throw new Error(`build A has ${a.openRuns} open runs`);
      return a;
    });
    expect(drained).toMatchObject({ retirable: true, parkedRuns: 0 });
  }, 240_000);

  it('moves an auto-upgrade run to the current build at its next task', async () => {
    const queue = uniqueQueue('deploy-auto');
    const name = `tg-${randomUUID().slice(0, 8)}`;
    const onA = gatedTestAgent('upgrade-agent');
    const onB = gatedTestAgent('upgrade-agent');
    const dropped = gatedTestAgent('dropped-agent');
    const releaseA = await build(
      [onA.agent, dropped.agent],
      queue,
      { name, buildId: 'A' },
      'auto-upgrade',
    );
    const parked = await releaseA.getAgent('upgrade-agent').generate('delete rec-1');
    const orphan = await releaseA.getAgent('dropped-agent').generate('delete rec-1');
    expect([parked.finishReason, orphan.finishReason]).toEqual(['suspended', 'suspended']);

    // The refusal below reads what Temporal lists (the current build, build A's task queues, the
    // agent's open runs), which trails a build and a run this fresh by moments: CI once saw the
    // switch go through.
    const client = await releaseA.client();
    await eventually(async () => {
      const deployment = await describeDeployment(client, name);
      expect(deployment?.routingConfig?.currentDeploymentVersion?.buildId).toBe('A');
      const version = await describeVersion(client, name, 'A');
      const queues = version?.taskQueueInfos?.map((info) => info.name);
      expect(queues).toContain(agentTaskQueue(queue, 'dropped-agent'));
      expect((await client.workflow.count(`WorkflowId = '${orphan.runId}'`)).count).toBe(1);
    });

    // B drops an agent: its open runs follow the current build, so making B current is refused.
    const releaseB = await build([onB.agent], queue, { name, buildId: 'B' }, 'auto-upgrade');
    // The roll through the command line, as an operator does it.
    const flags = ['--deployment', name, '--task-queue', queue];
    const stranding = await cli(['deployments', 'current', 'B', ...flags]);
    expect([stranding.code, stranding.stderr]).toEqual([
      5,
      expect.stringMatching(/BUILD_LACKS_AGENT[\s\S]*"dropped-agent" \(1 run/),
    ]);
    const agentA = releaseA.getAgent('dropped-agent');
    expect((await agentA.approveToolCallGenerate({ runId: orphan.runId })).finishReason).toBe(
      'stop',
    );
    expect(runIdsOf(dropped.executions)).toEqual([orphan.runId]);
    // With its last run ended, the switch goes through.
    const current = await eventually(async () => {
      const answer = await cli(['deployments', 'current', 'B', ...flags]);
      if (answer.code !== 0) throw new Error(answer.stderr);
      return answer;
    });
    expect([current.code, current.stdout]).toEqual([0, expect.stringContaining('now current')]);
    const listed = await cli(['deployments', ...flags, '--json']);
    expect(listed.code).toBe(0);
    const shown = JSON.parse(listed.stdout) as { deployments: DeploymentReport[] };
    expect(shown.deployments[0]!.currentBuildId).toBe('B');
    expect(shown.deployments[0]!.versions.map((version) => version.buildId).sort()).toEqual([
      'A',
      'B',
    ]);
    const refused = await cli(['deployments', 'retire', 'B', ...flags]);
    expect([refused.code, refused.stderr]).toEqual([5, expect.stringContaining('current')]);

    const done = await releaseB
      .getAgent('upgrade-agent')
      .approveToolCallGenerate({ runId: parked.runId });
    expect(done.finishReason).toBe('stop');
    expect(onA.executions).toHaveLength(0);
    expect(runIdsOf(onB.executions)).toEqual([parked.runId]);
    // Nothing is pinned to A: it may retire once its workers stop.
    const [report] = await releaseB.deployments.report(name);
    expect(report!.versions.find((version) => version.buildId === 'A')).toMatchObject({
      openRuns: 0,
      retirable: true,
    });
  }, 180_000);

  it('refuses bad deployment options by name', () => {
    const agents = { a: gatedTestAgent('opt-agent').agent };
    const make = (worker: object) => () => new Tollgate({ agents, worker });
    expect(make({ deployment: { name: 'x', buildId: '1' } })).toThrow(/worker\.versioning/);
    expect(make({ versioning: 'pinned' })).toThrow(/needs worker\.deployment/);
    expect(make({ deployment: { name: 'a.b', buildId: '1' }, versioning: 'pinned' })).toThrow(
      /worker\.deployment\.name/,
    );
    expect(make({ deployment: { name: 'a', buildId: '' }, versioning: 'pinned' })).toThrow(
      /worker\.deployment\.buildId/,
    );
  });
});
