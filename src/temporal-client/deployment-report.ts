import type { Client } from '@temporalio/client';
// CommonJS: its `temporal` namespace comes through the default import (search-attributes.ts).
import proto from '@temporalio/proto';
import { AGENT_RUN_WORKFLOW, SEARCH_ATTRIBUTES } from '../common/wire.js';
import { recentPollers } from './worker-pollers.js';

const STATUS = proto.temporal.api.enums.v1.WorkerDeploymentVersionStatus;

/** What Temporal answers about one deployment (DescribeWorkerDeployment). */
export type DeploymentInfo = proto.temporal.api.deployment.v1.IWorkerDeploymentInfo;

export type VersionStatus = 'current' | 'ramping' | 'draining' | 'drained' | 'inactive';

/** One build of a deployment, as `tollgate deployments` and `tollgate doctor` show it. */
export interface VersionReport {
  buildId: string;
  status: VersionStatus;
  /** Of new runs, the share this build takes while it ramps (0-100). */
  rampPercent?: number;
  /** Workers of this build that polled the task queue lately. */
  pollers: number;
  /** Open agent runs pinned to this build: they end on it unless moved. */
  openRuns: number;
  /** Of those, the runs that wait on a person. */
  parkedRuns: number;
  /** Whether `retire` would take it off now: not current or ramping, and no pinned run open. */
  retirable: boolean;
  /** Why it may or may not be retired, in a sentence. */
  verdict: string;
}

export interface DeploymentReport {
  name: string;
  currentBuildId?: string;
  rampingBuildId?: string;
  versions: VersionReport[];
}

/**
 * Reads one deployment's builds that serve `taskQueue`, with the agent runs pinned to each
 * (visibility) and its workers polling now: what `tollgate deployments` and `doctor` print.
 */
export class DeploymentReader {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly seenWithinMs: number,
  ) {}

  async report(name: string, info: DeploymentInfo | undefined): Promise<DeploymentReport> {
    const routing = info?.routingConfig;
    const pollers = await this.pollersByBuild(name);
    const versions: VersionReport[] = [];
    for (const summary of info?.versionSummaries ?? []) {
      const buildId = summary.deploymentVersion?.buildId;
      if (!buildId) continue;
      const serves = await this.servesQueue(name, buildId);
      if (!serves) continue;
      const status = statusOf(summary.status);
      const [openRuns, parkedRuns] = await this.pinnedRuns(name, buildId);
      const polling = pollers.get(buildId) ?? 0;
      versions.push({
        buildId,
        status,
        ...(status === 'ramping' ? { rampPercent: routing?.rampingVersionPercentage ?? 0 } : {}),
        pollers: polling,
        openRuns,
        parkedRuns,
        ...verdictOf(status, openRuns, polling),
      });
    }
    const current = routing?.currentDeploymentVersion?.buildId;
    const ramping = routing?.rampingDeploymentVersion?.buildId;
    return {
      name,
      ...(current ? { currentBuildId: current } : {}),
      ...(ramping ? { rampingBuildId: ramping } : {}),
      versions,
    };
  }

  private async servesQueue(name: string, buildId: string): Promise<boolean> {
    const { client } = this;
    const answer = await client.workflowService.describeWorkerDeploymentVersion({
      namespace: client.options.namespace,
      deploymentVersion: { deploymentName: name, buildId },
    });
    const queues = answer.workerDeploymentVersionInfo?.taskQueueInfos ?? [];
    return queues.some((queue) => queue.name === this.taskQueue);
  }

  private async pollersByBuild(name: string): Promise<Map<string, number>> {
    const { client } = this;
    const pollers = await recentPollers(client, this.taskQueue, this.seenWithinMs);
    const counts = new Map<string, number>();
    for (const poller of pollers.values()) {
      if (poller.deployment?.deploymentName !== name) continue;
      const buildId = poller.deployment.buildId;
      counts.set(buildId, (counts.get(buildId) ?? 0) + 1);
    }
    return counts;
  }

  /** Open agent runs pinned to the build, and those of them waiting on a person (visibility). */
  private async pinnedRuns(name: string, buildId: string): Promise<[number, number]> {
    const { client } = this;
    const pinned =
      `WorkflowType = '${AGENT_RUN_WORKFLOW}' AND TaskQueue = '${this.taskQueue}' AND ExecutionStatus = 'Running'` +
      ` AND TemporalWorkerDeploymentVersion = '${name}:${buildId}' AND TemporalWorkflowVersioningBehavior = 'Pinned'`;
    const parked = `${pinned} AND ${SEARCH_ATTRIBUTES.status.name} IN ('awaiting-approval', 'suspended')`;
    const [open, waiting] = await Promise.all([
      client.workflow.count(pinned),
      client.workflow.count(parked),
    ]);
    return [open.count, waiting.count];
  }
}

function statusOf(status: number | null | undefined): VersionStatus {
  switch (status) {
    case STATUS.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT:
      return 'current';
    case STATUS.WORKER_DEPLOYMENT_VERSION_STATUS_RAMPING:
      return 'ramping';
    case STATUS.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING:
      return 'draining';
    case STATUS.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINED:
      return 'drained';
    default:
      return 'inactive';
  }
}

function verdictOf(
  status: VersionStatus,
  openRuns: number,
  pollers: number,
): { retirable: boolean; verdict: string } {
  if (status === 'current' || status === 'ramping') {
    return { retirable: false, verdict: `It is ${status}: new runs go to it.` };
  }
  if (openRuns > 0) {
    return {
      retirable: false,
      verdict: `${openRuns} open run(s) are pinned to it: let them finish, or move them to the current build (tollgate runs move).`,
    };
  }
  return {
    retirable: true,
    verdict:
      pollers > 0
        ? 'No run needs it: stop its workers, then retire it.'
        : 'No run needs it and no worker of it polls: retire it.',
  };
}
