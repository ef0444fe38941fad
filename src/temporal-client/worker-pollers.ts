import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time.js';
import type { WorkerDeploymentVersion } from '@temporalio/common';
// CommonJS: its `temporal` namespace comes through the default import (search-attributes.ts).
import proto from '@temporalio/proto';
import { TollgateError } from '../common/errors.js';
import { agentTaskQueue } from '../common/wire.js';

/** Workers Temporal saw poll one task queue for workflow tasks. */
export interface TaskQueuePollers {
  taskQueue: string;
  /** Workers seen polling within `seenWithinMs`; 0 means no worker would pick up a decision. */
  pollers: number;
  /** Set when the run's workflow queue has workers but none hosts its agent. */
  agentId?: string;
  /** Set when the run's build (pinned, or its deployment's current one) has no polling worker. */
  build?: WorkerDeploymentVersion;
}

/** Protobuf enum values of DescribeTaskQueue: a normal queue, its workflow- or activity-task side. */
const NORMAL_QUEUE = 1;
const TASK_TYPES = { workflow: 1, activity: 2 } as const;

/**
 * Identities of the workers Temporal saw poll `taskQueue` for workflow (or activity) tasks within
 * `seenWithinMs`. Temporal keeps a stopped worker in the list for minutes, with its last poll
 * time, so the time decides; an idle live worker re-polls about every 60 s.
 */
export async function recentPollers(
  client: Client,
  taskQueue: string,
  seenWithinMs: number,
  tasks: keyof typeof TASK_TYPES = 'workflow',
): Promise<Map<string, RecentPoller>> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: NORMAL_QUEUE },
    taskQueueType: TASK_TYPES[tasks],
  });
  const since = Date.now() - seenWithinMs;
  const pollers = new Map<string, RecentPoller>();
  for (const poller of response.pollers ?? []) {
    if ((optionalTsToMs(poller.lastAccessTime) ?? 0) < since) continue;
    const identity = poller.identity ?? '';
    const { deploymentName, buildId } = poller.deploymentOptions ?? {};
    const deployment = deploymentName && buildId ? { deploymentName, buildId } : undefined;
    // One identity polls once per build it runs; keyed by both, each build counts it.
    pollers.set(`${identity}\n${deploymentName ?? ''}\n${buildId ?? ''}`, {
      identity,
      ...(deployment ? { deployment } : {}),
    });
  }
  return pollers;
}

/** Whether `poller` is a worker of `build` (same deployment and build id). */
export function isOfBuild(poller: RecentPoller, build: WorkerDeploymentVersion): boolean {
  return (
    poller.deployment?.deploymentName === build.deploymentName &&
    poller.deployment.buildId === build.buildId
  );
}

/** A worker Temporal saw poll lately, and the Worker Deployment build it belongs to, if any. */
export interface RecentPoller {
  identity: string;
  deployment?: WorkerDeploymentVersion;
}

/** How many workers polled `taskQueue` within `seenWithinMs` (see `recentPollers`). */
export async function countPollers(
  client: Client,
  taskQueue: string,
  seenWithinMs: number,
): Promise<TaskQueuePollers> {
  const pollers = await recentPollers(client, taskQueue, seenWithinMs);
  return { taskQueue, pollers: identitiesOf(pollers.values()).size };
}

function identitiesOf(pollers: Iterable<RecentPoller>): Set<string> {
  return new Set([...pollers].map((poller) => poller.identity));
}

/**
 * The build a run is pinned to (docs/deploying.md): by an operator's move, else by the build it
 * started on when its worker pins runs. Undefined for an auto-upgrade or unversioned run, which
 * any build of the queue may take.
 */
export function pinnedBuildOf(
  run: WorkflowExecutionDescription,
): WorkerDeploymentVersion | undefined {
  const info = run.raw.workflowExecutionInfo?.versioningInfo;
  const moved = info?.versioningOverride?.pinned?.version;
  if (moved?.deploymentName && moved.buildId) {
    return { deploymentName: moved.deploymentName, buildId: moved.buildId };
  }
  const pinned =
    info?.behavior === proto.temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED;
  const started = info?.deploymentVersion;
  if (!pinned || !started?.deploymentName || !started.buildId) return undefined;
  return { deploymentName: started.deploymentName, buildId: started.buildId };
}

/**
 * `WORKER_UNAVAILABLE` for a run none of whose workers could act: naming the build it is pinned
 * to, or its agent, or its queue. `unsent` says what was not sent, e.g. "the decision".
 */
export function workerUnavailable(
  found: TaskQueuePollers,
  runId: string,
  unsent: string,
): TollgateError {
  const { build, agentId, taskQueue } = found;
  const host = agentId !== undefined ? ` hosting agent "${agentId}"` : '';
  if (build) {
    return new TollgateError(
      'WORKER_UNAVAILABLE',
      `Run ${runId}'s next task goes to build ${build.buildId} of deployment ${build.deploymentName}, and no worker of that build${host} polls task queue '${taskQueue}'; ${unsent} was not sent. Start that build's workers, or move the run to a build that polls (tollgate runs move ${runId}), then try again.`,
    );
  }
  return new TollgateError(
    'WORKER_UNAVAILABLE',
    agentId !== undefined
      ? `No worker${host} polls task queue '${taskQueue}' of run ${runId}, so the work it would release could not run; ${unsent} was not sent. Start a worker with that agent, then try again.`
      : `No worker polls task queue '${taskQueue}' of run ${runId}, so nothing would apply it; ${unsent} was not sent. Start a worker for that queue, then try again.`,
  );
}

/** How long a poller count is reused, ms: decisions in a burst ask Temporal once. */
const POLLERS_TTL_MS = 2_000;

/**
 * Whether a run's task queue has a worker. Poller counts are asked of Temporal at most every two
 * seconds per queue; the run's description (its queue, and whether it is still open: a closed
 * run needs no worker to refuse a decision) is read fresh on every call, or taken from a caller
 * that has just read it.
 */
export class WorkerAvailability {
  private readonly polls = new Map<string, { at: number; pollers: RecentPoller[] }>();
  private readonly routing = new Map<string, { at: number; builds: WorkerDeploymentVersion[] }>();

  constructor(private readonly seenWithinMs: number) {}

  /**
   * The run's task queue and its pollers; undefined when the run is closed. With `agentId`, a
   * queue whose workers all lack the agent counts as none: they could apply a decision, but not
   * run the tool it releases (its activities go to `agentTaskQueue`, which only hosts poll).
   */
  async ofRun(
    client: Client,
    runId: string,
    described?: WorkflowExecutionDescription,
    agentId?: string,
  ): Promise<TaskQueuePollers | undefined> {
    const run = described ?? (await client.workflow.getHandle(runId).describe());
    if (run.status.name !== 'RUNNING') return undefined;
    const queue = { taskQueue: run.taskQueue };
    // A versioned run's tasks go to its build's workers only; the rest of the queue cannot act.
    const builds = await this.buildsOf(client, run);
    const build = builds?.[0];
    const ofBuild = (poller: RecentPoller) =>
      !builds || builds.some((each) => isOfBuild(poller, each));
    const count = async (taskQueue: string, tasks: 'workflow' | 'activity') =>
      identitiesOf((await this.pollersOf(client, taskQueue, tasks)).filter(ofBuild)).size;
    const pollers = await count(run.taskQueue, 'workflow');
    if (pollers === 0) return { ...queue, pollers, ...(build ? { build } : {}) };
    if (agentId === undefined) return { ...queue, pollers };
    const hosts = await count(agentTaskQueue(run.taskQueue, agentId), 'activity');
    return hosts === 0
      ? { ...queue, pollers: 0, agentId, ...(build ? { build } : {}) }
      : { ...queue, pollers };
  }

  /**
   * The builds whose workers take the run's next task: the one it is pinned to; for an
   * auto-upgrade run, its deployment's current build (and the ramping one, which may take it);
   * undefined for an unversioned run, which any worker of the queue takes.
   */
  private async buildsOf(
    client: Client,
    run: WorkflowExecutionDescription,
  ): Promise<WorkerDeploymentVersion[] | undefined> {
    const pinned = pinnedBuildOf(run);
    if (pinned) return [pinned];
    const deploymentName =
      run.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.deploymentName;
    if (!deploymentName) return undefined;
    const cached = this.routing.get(deploymentName);
    if (cached && Date.now() - cached.at < POLLERS_TTL_MS) return cached.builds;
    const answer = await client.workflowService.describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName,
    });
    const routing = answer.workerDeploymentInfo?.routingConfig;
    const builds = [routing?.currentDeploymentVersion, routing?.rampingDeploymentVersion]
      .map((version) => version?.buildId)
      .filter((buildId): buildId is string => Boolean(buildId))
      .map((buildId) => ({ deploymentName, buildId }));
    this.routing.set(deploymentName, { at: Date.now(), builds });
    return builds;
  }

  private async pollersOf(
    client: Client,
    taskQueue: string,
    tasks: 'workflow' | 'activity',
  ): Promise<RecentPoller[]> {
    const key = `${tasks}:${taskQueue}`;
    const cached = this.polls.get(key);
    if (cached && Date.now() - cached.at < POLLERS_TTL_MS) return cached.pollers;
    const found = await recentPollers(client, taskQueue, this.seenWithinMs, tasks);
    const pollers = [...found.values()];
    this.polls.set(key, { at: Date.now(), pollers });
    return pollers;
  }
}
