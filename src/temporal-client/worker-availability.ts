import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { agentTaskQueue } from '../common/wire.js';
import { RefreshingCache } from './refreshing-cache.js';
import type { RunFacts } from './run-facts.js';
import {
  identitiesOf,
  isOfBuild,
  listedPollers,
  pinnedBuildOf,
  recentOf,
  type ListedPoller,
  type PollerTasks,
  type RecentPoller,
  type TaskQueuePollers,
} from './worker-pollers.js';

/** How long a poller listing is reused, ms: decisions in a burst ask Temporal once. */
const POLLERS_TTL_MS = 2_000;
/**
 * How long after a decision saw an aging listing it is renewed, ms: past the decision's update
 * and the work it releases, which a listing sent beside them slowed by a few ms (bench/decision-
 * profile.ts, docs/performance.md).
 */
const RENEW_AFTER_MS = 250;

/**
 * Whether a run's task queue has a worker that could act on a decision. Poller listings and
 * deployment routing are asked of Temporal at most every two seconds per queue (renewed in the
 * background, a moment after a decision, while decisions keep coming), each listing of a decision at the same time. A "no
 * worker" is only answered from listings asked during the call. Whether the run is open, and
 * its build, are read from its description, fresh or given by a caller that has just read it;
 * see `ofRun` for when none is needed.
 */
export class WorkerAvailability {
  private readonly listings = new RefreshingCache<ListedPoller[]>(POLLERS_TTL_MS, RENEW_AFTER_MS);
  private readonly routing = new RefreshingCache<WorkerDeploymentVersion[]>(
    POLLERS_TTL_MS,
    RENEW_AFTER_MS,
  );
  /** Queues seen with a versioned worker: their runs' builds are always read from then on. */
  private readonly versioned = new Set<string>();

  constructor(private readonly seenWithinMs: number) {}

  /**
   * The run's task queue and its pollers; undefined when the run is closed. With `agentId`, a
   * queue whose workers all lack the agent counts as none: they could apply a decision, but not
   * run the tool it releases (its activities go to `agentTaskQueue`, which only hosts poll).
   *
   * `known` is the run's description, or only its facts (`RunFacts`): then, when no worker
   * Temporal still lists for the queue belongs to a Worker Deployment (and none ever did, as far
   * as this process saw) and both queues have workers, the run is not described: any worker of
   * the queue takes its tasks, and a closed run refuses the decision itself (`RUN_FINISHED`).
   * Otherwise the description decides: the build a versioned run goes to, and whether it is open.
   */
  async ofRun(
    client: Client,
    runId: string,
    known?: WorkflowExecutionDescription | RunFacts,
    agentId?: string,
  ): Promise<TaskQueuePollers | undefined> {
    if (known && !isDescription(known)) {
      const quick = await this.ofUnversionedQueue(client, known.taskQueue, agentId);
      if (quick) return quick;
    }
    const run =
      known && isDescription(known) ? known : await client.workflow.getHandle(runId).describe();
    if (run.status.name !== 'RUNNING') return undefined;
    const asked = Date.now();
    const found = await this.ofOpenRun(client, run, agentId);
    // A worker may have started since a cached "none": ask again before refusing.
    return found.pollers === 0 ? this.ofOpenRun(client, run, agentId, asked) : found;
  }

  /** The queue's pollers when it is unversioned and both queues have some; else undefined. */
  private async ofUnversionedQueue(
    client: Client,
    taskQueue: string,
    agentId: string | undefined,
  ): Promise<TaskQueuePollers | undefined> {
    const [listed, hosts] = await Promise.all([
      this.listed(client, taskQueue, 'workflow'),
      agentId === undefined
        ? undefined
        : this.listed(client, agentTaskQueue(taskQueue, agentId), 'activity'),
    ]);
    if (this.versioned.has(taskQueue)) return undefined;
    const count = (pollers: ListedPoller[]) =>
      identitiesOf(recentOf(pollers, this.seenWithinMs).values()).size;
    const pollers = count(listed);
    if (pollers === 0 || (hosts && count(hosts) === 0)) return undefined;
    return { taskQueue, pollers };
  }

  /** The open run's pollers, from listings asked at or after `notBefore`. */
  private async ofOpenRun(
    client: Client,
    run: WorkflowExecutionDescription,
    agentId: string | undefined,
    notBefore?: number,
  ): Promise<TaskQueuePollers> {
    const queue = { taskQueue: run.taskQueue };
    const [builds, listed, hosts] = await Promise.all([
      this.buildsOf(client, run, notBefore),
      this.listed(client, run.taskQueue, 'workflow', notBefore),
      agentId === undefined
        ? undefined
        : this.listed(client, agentTaskQueue(run.taskQueue, agentId), 'activity', notBefore),
    ]);
    // A versioned run's tasks go to its build's workers only; the rest of the queue cannot act.
    const build = builds?.[0];
    const ofBuild = (poller: RecentPoller) =>
      !builds || builds.some((each) => isOfBuild(poller, each));
    const count = (pollers: ListedPoller[]) =>
      identitiesOf([...recentOf(pollers, this.seenWithinMs).values()].filter(ofBuild)).size;
    const pollers = count(listed);
    if (pollers === 0) return { ...queue, pollers, ...(build ? { build } : {}) };
    if (hosts === undefined || count(hosts) > 0) return { ...queue, pollers };
    return { ...queue, pollers: 0, agentId: agentId!, ...(build ? { build } : {}) };
  }

  /**
   * The builds whose workers take the run's next task: the one it is pinned to; for an
   * auto-upgrade run, its deployment's current build (and the ramping one, which may take it);
   * undefined for an unversioned run, which any worker of the queue takes.
   */
  private async buildsOf(
    client: Client,
    run: WorkflowExecutionDescription,
    notBefore?: number,
  ): Promise<WorkerDeploymentVersion[] | undefined> {
    const pinned = pinnedBuildOf(run);
    if (pinned) return [pinned];
    const deploymentName =
      run.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.deploymentName;
    if (!deploymentName) return undefined;
    const ask = async () => {
      const answer = await client.workflowService.describeWorkerDeployment({
        namespace: client.options.namespace,
        deploymentName,
      });
      const routing = answer.workerDeploymentInfo?.routingConfig;
      return [routing?.currentDeploymentVersion, routing?.rampingDeploymentVersion]
        .map((version) => version?.buildId)
        .filter((buildId): buildId is string => Boolean(buildId))
        .map((buildId) => ({ deploymentName, buildId }));
    };
    return this.routing.get(deploymentName, ask, notBefore);
  }

  /** Every poller Temporal lists for the queue; notes a queue with versioned workflow pollers. */
  private async listed(
    client: Client,
    taskQueue: string,
    tasks: PollerTasks,
    notBefore?: number,
  ): Promise<ListedPoller[]> {
    const ask = () => listedPollers(client, taskQueue, tasks);
    const pollers = await this.listings.get(`${tasks}:${taskQueue}`, ask, notBefore);
    if (tasks === 'workflow' && pollers.some((poller) => poller.deployment)) {
      this.versioned.add(taskQueue);
    }
    return pollers;
  }
}

function isDescription(
  known: WorkflowExecutionDescription | RunFacts,
): known is WorkflowExecutionDescription {
  return 'status' in known;
}
