/**
 * Moving a parked run to another build on purpose (docs/deploying.md "Moving a parked run to
 * another build"): builds of one Worker Deployment with runs pinned to build A; a move once the
 * new build replayed the run, recorded in its audit trail, and every refusal leaving the run on A.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { AgentRegistry } from '../src/activities/agent-registry.js';
import { createActivities } from '../src/activities/index.js';
import { DEFAULT_THREAD_SETTINGS } from '../src/activities/memory.js';
import { agentTaskQueue, REPLAY_CHECK_WORKFLOW } from '../src/common/wire.js';
import { TollgateClient } from '../src/http-client/index.js';
import { LiveBus } from '../src/live/live-bus.js';
import { z } from 'zod';
import { createTool, Tollgate, type Agent, type AuditEntry } from '../src/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { pinnedBuildOf, recentPollers } from '../src/temporal-client/worker-pollers.js';
import { replayOnBuild } from '../src/temporal-client/replay-on-build.js';
import { checkWorkerSettings } from '../src/worker-settings.js';
import { cli } from './support/cli.js';
import {
  eventually,
  gatedTestAgent,
  hostAgents,
  silentLogger,
  testAgent,
  uniqueId,
  uniqueQueue,
} from './support/harness.js';

const AGENT = 'move-agent';
const distFile = (path: string) => fileURLToPath(new URL(path, import.meta.url));
/** A release whose `agentRun` cannot replay earlier runs, with the replay check. */
const CHANGED_BUILD = distFile('./support/changed-build-workflows.js');
/** A release from before run moves: no replay check (and a changed `agentRun`). */
const BUILD_BEFORE_MOVES = distFile('./support/changed-workflow.js');
const TOKENS = { admin: 'move-admin-token-0123456789', decider: 'move-decider-token-0123456789' };

describe('moving a parked run to another build', () => {
  const deployment = uniqueId('move');
  const taskQueue = uniqueQueue('move');
  const onA = gatedTestAgent(AGENT);
  const onB = gatedTestAgent(AGENT);
  const busy = slowAgent('move-busy-agent');
  const opened: Tollgate[] = [];
  let buildA: Tollgate;
  /** Four runs parked on build A while it was current: moved by the SDK, refused, CLI, HTTP. */
  let runs: { moved: string; refused: string; byCli: string; byHttp: string };

  const build = async (buildId: string, agents: Record<string, Agent>): Promise<Tollgate> => {
    const tollgate = new Tollgate({
      agents,
      temporal: { taskQueue },
      worker: { deployment: { name: deployment, buildId }, versioning: 'pinned' },
    });
    opened.push(tollgate);
    await tollgate.startWorker();
    return tollgate;
  };
  const describeRun = async (runId: string) =>
    (await buildA.client()).workflow.getHandle(runId).describe();
  const pinnedTo = async (runId: string) => pinnedBuildOf(await describeRun(runId))?.buildId;
  const park = async (): Promise<string> => {
    const output = await buildA.getAgent(AGENT).generate('delete rec-1');
    expect(output.finishReason).toBe('suspended');
    return output.runId;
  };
  const movesOf = async (runId: string): Promise<AuditEntry[]> =>
    (await buildA.getAgent(AGENT).getAuditTrail(runId)).filter((entry) => entry.type === 'moved');
  const ref = (buildId: string) => ({ deployment, buildId });
  /**
   * Until Temporal registered the build with the queue and lists its workers polling the queue
   * and `agentId`'s queue: a fresh worker's first polls may reach other partitions of a queue.
   */
  const untilUp = (buildId: string, agentId = AGENT) =>
    eventually(async () => {
      const [report] = await buildA.deployments.report(deployment);
      expect(report?.versions.map((version) => version.buildId)).toContain(buildId);
      const client = await buildA.client();
      const polling = async (queue: string, tasks: 'workflow' | 'activity') =>
        [...(await recentPollers(client, queue, 75_000, tasks)).values()].some(
          (poller) => poller.deployment?.buildId === buildId,
        );
      expect(await polling(taskQueue, 'workflow')).toBe(true);
      expect(await polling(agentTaskQueue(taskQueue, agentId), 'activity')).toBe(true);
    }, 30_000);

  beforeAll(async () => {
    buildA = await build('A', { agent: onA.agent });
    runs = {
      moved: await park(),
      refused: await park(),
      byCli: await park(),
      byHttp: await park(),
    };
    const buildB = await build('B', { agent: onB.agent, busy: busy.agent });
    await buildB.deployments.setCurrent(deployment, 'B');
    await untilUp('B');
  });
  afterAll(async () => {
    for (const tollgate of opened) await tollgate.shutdown().catch(() => undefined);
  });

  it('refuses a caller without the admin action: FORBIDDEN, the run stays on build A', async () => {
    await expect(
      buildA.deployments.move(runs.moved, { scope: { actions: ['decide'] } }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await pinnedTo(runs.moved)).toBe('A');
  });

  it("moves a parked run to the current build, keeps the move in its audit trail, and B's tool runs the call once", async () => {
    const moved = await buildA.deployments.move(runs.moved, {
      reason: 'ship the fix',
      identity: { id: 'alice', roles: ['ops'] },
    });
    expect(moved).toEqual({ runId: runs.moved, from: ref('A'), to: ref('B') });
    const described = await describeRun(runs.moved);
    expect(pinnedBuildOf(described)).toEqual({ deploymentName: deployment, buildId: 'B' });
    expect(described.raw.workflowExecutionInfo?.versioningInfo?.versioningOverride).toMatchObject({
      pinned: { version: { deploymentName: deployment, buildId: 'B' } },
    });
    // Written by build B's code: the signal's workflow task was the first the run had there.
    expect(await eventually(async () => expectOne(await movesOf(runs.moved)))).toMatchObject({
      type: 'moved',
      from: ref('A'),
      to: ref('B'),
      movedBy: { id: 'alice', roles: ['ops'] },
      reason: 'ship the fix',
    });

    const approved = await buildA.getAgent(AGENT).approveToolCallGenerate({ runId: runs.moved });
    expect(approved.finishReason).toBe('stop');
    expect(onB.executions).toHaveLength(1);
    expect(onA.executions).toHaveLength(0);
  });

  it('refuses a run that is busy between two waits: RUN_NOT_MOVABLE, and the run goes on', async () => {
    const stream = await buildA.getAgent('move-busy-agent').stream('go');
    await busy.executing;
    await expect(buildA.deployments.move(stream.runId, { to: 'A' })).rejects.toMatchObject({
      code: 'RUN_NOT_MOVABLE',
      message: expect.stringContaining(
        `Run ${stream.runId} is busy (1 model step(s) or tool call(s) running)`,
      ),
    });
    busy.release();
    expect(await stream.finishReason).toBe('stop');
    expect(await pinnedTo(stream.runId)).toBe('B');
  });

  it('refuses a run that has finished (RUN_FINISHED) and one already on the build', async () => {
    await expect(buildA.deployments.move(runs.moved)).rejects.toMatchObject({
      code: 'RUN_FINISHED',
    });
    await expect(buildA.deployments.move(runs.refused, { to: 'A' })).rejects.toMatchObject({
      code: 'RUN_NOT_MOVABLE',
      message: expect.stringContaining('already pinned to build A'),
    });
    await expect(buildA.deployments.move(runs.refused, { to: 'nowhere' })).rejects.toMatchObject({
      code: 'DEPLOYMENT_NOT_FOUND',
    });
    expect(await pinnedTo(runs.refused)).toBe('A');
  });

  it('refuses a build that does not host the run’s agent: RUN_NOT_MOVABLE naming the agent', async () => {
    const { agent: other } = gatedTestAgent('move-other-agent');
    await build('C', { other });
    await untilUp('C', 'move-other-agent');
    await expect(buildA.deployments.move(runs.refused, { to: 'C' })).rejects.toMatchObject({
      code: 'RUN_NOT_MOVABLE',
      message: expect.stringContaining(`does not host agent "${AGENT}"`),
    });
    expect(await pinnedTo(runs.refused)).toBe('A');
  });

  it('refuses a build none of whose workers polls: WORKER_UNAVAILABLE naming the build', async () => {
    const buildD = await build('D', { agent: gatedTestAgent(AGENT).agent });
    await untilUp('D');
    await buildD.shutdown();
    // A stopped worker counts until its polls are older than workerSeenWithin.
    const seenWithinMs = 2000;
    await eventually(async () => {
      const pollers = await recentPollers(await buildA.client(), taskQueue, seenWithinMs);
      const ofD = [...pollers.values()].filter((poller) => poller.deployment?.buildId === 'D');
      expect(ofD).toEqual([]);
    }, 90_000);
    const operator = new Tollgate({
      temporal: { taskQueue },
      decisions: { workerSeenWithin: seenWithinMs },
    });
    opened.push(operator);
    const refusal = await operator.deployments
      .move(runs.refused, { to: 'D' })
      .catch((e: unknown) => e);
    expect(refusal).toMatchObject({
      code: 'WORKER_UNAVAILABLE',
      message: expect.stringContaining(
        `No worker of build D of deployment ${deployment} polls task queue '${taskQueue}'`,
      ),
    });
    expect(await pinnedTo(runs.refused)).toBe('A');
  });

  it('gives up on a build without the replay check (older than moves): WORKER_UNAVAILABLE, the check ended', async () => {
    const stopY = await startBuild('Y', BUILD_BEFORE_MOVES);
    try {
      await untilUp('Y');
      const client = await buildA.client();
      const run = await describeRun(runs.refused);
      const checked = {
        runId: runs.refused,
        execution: run.runId,
        taskQueue,
        from: pinnedBuildOf(run)!,
      };
      const target = { deploymentName: deployment, buildId: 'Y' };
      const error = await replayOnBuild(client, checked, target, 5_000).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'WORKER_UNAVAILABLE',
        message: expect.stringMatching(
          /its workers failed it for 5 s: .*a build older than run moves has no replay check/,
        ),
      });
      const open = `WorkflowType = '${REPLAY_CHECK_WORKFLOW}' AND TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`;
      await eventually(async () => expect((await client.workflow.count(open)).count).toBe(0));
    } finally {
      await stopY();
    }
    expect(await pinnedTo(runs.refused)).toBe('A');
  });

  it('refuses a build whose code cannot replay the run: REPLAY_FAILED, and the run still finishes on A', async () => {
    const historyBefore = (await describeRun(runs.refused)).historyLength;
    const stopX = await startBuild('X', CHANGED_BUILD);
    try {
      await untilUp('X');
      const error = await buildA.deployments
        .move(runs.refused, { to: 'X' })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'REPLAY_FAILED' });
      expect((error as Error).message).toContain(
        `Build X of deployment ${deployment} cannot replay`,
      );
    } finally {
      await stopX();
    }
    expect(await pinnedTo(runs.refused)).toBe('A');
    expect(await movesOf(runs.refused)).toEqual([]);
    // Nothing reached the run: the checks only read it.
    expect((await describeRun(runs.refused)).historyLength).toBe(historyBefore);

    const approved = await buildA.getAgent(AGENT).approveToolCallGenerate({ runId: runs.refused });
    expect(approved.finishReason).toBe('stop');
    expect(onA.executions).toHaveLength(1);
    expect(onB.executions).toHaveLength(1);
  });

  it('refuses a run whose worker is not versioned: RUN_NOT_MOVABLE, it already follows the current code', async () => {
    const plain = gatedTestAgent('move-plain-agent');
    const unversioned = await hostAgents([plain.agent], 'move-plain');
    opened.push(unversioned);
    const client = unversioned.getAgent('move-plain-agent');
    const output = await client.generate('delete rec-1');
    expect(output.finishReason).toBe('suspended');
    await expect(unversioned.deployments.move(output.runId)).rejects.toMatchObject({
      code: 'RUN_NOT_MOVABLE',
      message: expect.stringContaining('not pinned to a build'),
    });
    expect((await client.approveToolCallGenerate({ runId: output.runId })).finishReason).toBe(
      'stop',
    );
    expect(plain.executions).toHaveLength(1);
  });

  it('moves a run with `tollgate runs move`, recording who moved it', async () => {
    const moved = await cli([
      'runs',
      'move',
      runs.byCli,
      '--to',
      'B',
      '--reason',
      'after the fix',
      '--as',
      'bob',
      '--task-queue',
      taskQueue,
      '--json',
    ]);
    expect(moved.stderr).toBe('');
    expect(moved.code).toBe(0);
    expect(JSON.parse(moved.stdout)).toEqual({ runId: runs.byCli, from: ref('A'), to: ref('B') });
    expect(await pinnedTo(runs.byCli)).toBe('B');
    expect(await eventually(async () => expectOne(await movesOf(runs.byCli)))).toMatchObject({
      movedBy: { id: 'bob' },
      reason: 'after the fix',
    });
    const audit = await cli(['audit', runs.byCli, '--task-queue', taskQueue]);
    expect(audit.stdout).toMatch(
      / moved +\(run\) +from build A to B by bob; reason: after the fix\n/,
    );
  });

  describe('over HTTP', () => {
    let server: ListeningServer;
    const remote = (token: string) =>
      new TollgateClient({ baseUrl: `${server.url}/`, token }).getAgent(AGENT);

    beforeAll(async () => {
      server = await createTollgateServer({
        tollgate: buildA,
        auth: {
          tokens: [
            { token: TOKENS.admin, id: 'release-bot', scopes: { actions: ['admin'] } },
            { token: TOKENS.decider, id: 'carol', scopes: { actions: ['read', 'decide'] } },
          ],
        },
        logError: () => undefined,
      }).listen({ port: 0 });
    });
    afterAll(async () => {
      await server.close();
    });

    it('refuses a token without admin with 403, and moves the run for an admin token in its name', async () => {
      await expect(remote(TOKENS.decider).moveRun({ runId: runs.byHttp })).rejects.toMatchObject({
        status: 403,
        code: 'FORBIDDEN',
      });
      expect(await pinnedTo(runs.byHttp)).toBe('A');

      const moved = await remote(TOKENS.admin).moveRun({ runId: runs.byHttp, reason: 'rollout' });
      expect(moved).toEqual({ runId: runs.byHttp, from: ref('A'), to: ref('B') });
      expect(await pinnedTo(runs.byHttp)).toBe('B');
      expect(await eventually(async () => expectOne(await movesOf(runs.byHttp)))).toMatchObject({
        movedBy: { id: 'release-bot' },
        reason: 'rollout',
      });
    });
  });

  /**
   * Build `buildId` as another release of the application, with the workflow code of
   * `workflowsPath`: the workers a Tollgate would start (the workflow worker with its activities,
   * the agent's activity worker). Returns how to stop them.
   */
  async function startBuild(buildId: string, workflowsPath: string): Promise<() => Promise<void>> {
    const changed = await bundleWorkflowCode({ workflowsPath, logger: silentLogger });
    const { agent } = gatedTestAgent(AGENT);
    const activities = createActivities({
      agents: new AgentRegistry([agent]),
      bus: new LiveBus(),
      client: await buildA.client(),
      threads: DEFAULT_THREAD_SETTINGS,
      policies: new Map(),
      workflowBundle: async () => changed,
    });
    const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    const versioned = {
      connection,
      namespace: process.env.TEMPORAL_NAMESPACE!,
      workerDeploymentOptions: checkWorkerSettings({
        deployment: { name: deployment, buildId },
        versioning: 'pinned',
      }).deployment!,
      activities,
    };
    const workers = [
      await Worker.create({ ...versioned, taskQueue, workflowBundle: changed }),
      await Worker.create({ ...versioned, taskQueue: agentTaskQueue(taskQueue, AGENT) }),
    ];
    const running = Promise.all(workers.map((worker) => worker.run()));
    return async () => {
      for (const worker of workers) worker.shutdown();
      await running;
      await connection.close();
    };
  }
});

/** An agent whose one tool runs until released: a run that is busy, not parked. */
function slowAgent(id: string) {
  let started!: () => void;
  let release!: () => void;
  const executing = new Promise<void>((resolve) => (started = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const slowStep = createTool({
    id: 'slow-step',
    description: 'A step that takes until it is released',
    inputSchema: z.object({}),
    execute: async () => {
      started();
      await released;
      return { done: true };
    },
  });
  const { agent } = testAgent(id, [slowStep], (prompt) =>
    prompt.at(-1)?.role === 'tool'
      ? { text: 'Done.' }
      : { toolCalls: [{ toolName: 'slow-step', args: {} }] },
  );
  return { agent, executing, release: () => release() };
}

function expectOne<T>(entries: T[]): T {
  expect(entries).toHaveLength(1);
  return entries[0]!;
}
