import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time.js';
import type { WorkerDeploymentVersion } from '@temporalio/common';
// CommonJS: its `temporal` namespace comes through the default import (search-attributes.ts).
import proto from '@temporalio/proto';
import { TollgateError } from '../common/errors.js';

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
  tasks: PollerTasks = 'workflow',
): Promise<Map<string, RecentPoller>> {
  return recentOf(await listedPollers(client, taskQueue, tasks), seenWithinMs);
}

/** Which tasks of a queue a poller asks for. */
export type PollerTasks = keyof typeof TASK_TYPES;

/** A worker Temporal lists for a queue, and when it last polled (`Date.now()` time). */
export interface ListedPoller extends RecentPoller {
  polledAt: number;
}

/** Every worker Temporal still lists for `taskQueue`, however long ago it polled. */
export async function listedPollers(
  client: Client,
  taskQueue: string,
  tasks: PollerTasks,
): Promise<ListedPoller[]> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: NORMAL_QUEUE },
    taskQueueType: TASK_TYPES[tasks],
  });
  return (response.pollers ?? []).map((poller) => {
    const { deploymentName, buildId } = poller.deploymentOptions ?? {};
    const deployment = deploymentName && buildId ? { deploymentName, buildId } : undefined;
    return {
      identity: poller.identity ?? '',
      polledAt: optionalTsToMs(poller.lastAccessTime) ?? 0,
      ...(deployment ? { deployment } : {}),
    };
  });
}

/**
 * The pollers of `listed` seen within `seenWithinMs`, keyed by identity and build: one identity
 * polls once per build it runs, and each build counts it.
 */
export function recentOf(
  listed: readonly ListedPoller[],
  seenWithinMs: number,
): Map<string, RecentPoller> {
  const since = Date.now() - seenWithinMs;
  const pollers = new Map<string, RecentPoller>();
  for (const { identity, deployment, polledAt } of listed) {
    if (polledAt < since) continue;
    const key = `${identity}\n${deployment?.deploymentName ?? ''}\n${deployment?.buildId ?? ''}`;
    pollers.set(key, { identity, ...(deployment ? { deployment } : {}) });
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

/** The distinct workers among `pollers`. */
export function identitiesOf(pollers: Iterable<RecentPoller>): Set<string> {
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
