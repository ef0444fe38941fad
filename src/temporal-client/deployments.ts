import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { MovedRun } from '../common/deployment-types.js';
import { isTollgateError, TollgateError } from '../common/errors.js';
import { requireAction, type Scope } from '../common/scope.js';
import { AGENT_RUN_WORKFLOW, SEARCH_ATTRIBUTES } from '../common/wire.js';
import {
  deploymentNames,
  describeDeployment,
  hasPollers,
  notFound,
  retireError,
  routingError,
  statusOf,
  verdictOf,
  versionServes,
  type VersionStatus,
} from './deployment-versions.js';
import { refuseStrandingSwitch } from './dropped-agents.js';
import { quote } from './list-suspended-runs.js';
import { moveRun, type MoveRunOptions } from './move-run.js';
import { recentPollers } from './worker-pollers.js';

const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;

export type { VersionStatus } from './deployment-versions.js';

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

/** Who switches builds, and whether a build may drop an agent whose runs would follow it. */
export interface SwitchCaller extends DeploymentCaller {
  /** Switch even when runs of an agent the new build lacks would wait there (`BUILD_LACKS_AGENT`). */
  allowDroppedAgents?: boolean;
}

/** Who changes a deployment's routing: it changes which code every new run gets, so `admin`. */
export interface DeploymentCaller {
  scope?: Scope;
  /** Recorded by Temporal with the change. */
  identity?: string;
}

/**
 * The Worker Deployments whose builds serve this task queue (docs/deploying.md): their builds
 * with the runs still pinned to each, and the routing changes of a roll (current, ramp, retire).
 * Reads and writes Temporal only; no worker needs to run.
 */
export class Deployments {
  constructor(
    private readonly client: () => Promise<Client>,
    readonly taskQueue: string,
    private readonly seenWithinMs: number,
  ) {}

  /** Every deployment with a build that polls or polled this task queue; or just `name`. */
  async report(name?: string): Promise<DeploymentReport[]> {
    const client = await this.client();
    const names = name !== undefined ? [name] : await deploymentNames(client);
    const reports = await Promise.all(names.map((each) => this.reportOf(client, each)));
    return reports.filter((report) => name !== undefined || report.versions.length > 0);
  }

  /** Makes `buildId` take every new run (and every auto-upgrade run at its next task). */
  async setCurrent(name: string, buildId: string, caller: SwitchCaller = {}): Promise<void> {
    requireAction(caller.scope, 'admin');
    const client = await this.client();
    if (!caller.allowDroppedAgents) await this.refuseStranding(client, name, buildId);
    await this.untilRegistered(name, buildId, () =>
      client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: client.options.namespace,
        deploymentName: name,
        buildId,
        // A build that dropped an agent leaves that agent's queue to the old build on purpose.
        ignoreMissingTaskQueues: true,
        identity: caller.identity ?? client.options.identity ?? 'tollgate',
      }),
    );
  }

  /** Sends `percent` of new runs to `buildId`, the rest to the current build; 0 stops the ramp. */
  async ramp(
    name: string,
    buildId: string,
    percent: number,
    caller: SwitchCaller = {},
  ): Promise<void> {
    requireAction(caller.scope, 'admin');
    if (!Number.isFinite(percent) || percent < 0 || percent > 100) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        `A ramp is a percentage from 0 to 100, not ${JSON.stringify(percent)}.`,
      );
    }
    const client = await this.client();
    if (percent > 0 && !caller.allowDroppedAgents)
      await this.refuseStranding(client, name, buildId);
    await this.untilRegistered(name, buildId, () =>
      client.workflowService.setWorkerDeploymentRampingVersion({
        namespace: client.options.namespace,
        deploymentName: name,
        buildId,
        percentage: percent,
        ignoreMissingTaskQueues: true,
        identity: caller.identity ?? client.options.identity ?? 'tollgate',
      }),
    );
  }

  /**
   * Takes `buildId` out of the deployment once no run needs it. Refused with
   * `VERSION_NOT_RETIRABLE` while it is current or ramping or runs are pinned to it, and while
   * Temporal still sees its workers (it forgets a stopped worker about 5 minutes later): with
   * `waitMs`, that last refusal is retried until then.
   */
  async retire(
    name: string,
    buildId: string,
    options: DeploymentCaller & { waitMs?: number } = {},
  ): Promise<VersionReport> {
    requireAction(options.scope, 'admin');
    const client = await this.client();
    const until = Date.now() + (options.waitMs ?? 0);
    for (;;) {
      const version = (await this.reportOf(client, name)).versions.find(
        (each) => each.buildId === buildId,
      );
      if (!version) throw notFound(name, buildId);
      if (!version.retirable) throw new TollgateError('VERSION_NOT_RETIRABLE', version.verdict);
      try {
        await client.workflowService.deleteWorkerDeploymentVersion({
          namespace: client.options.namespace,
          deploymentVersion: { deploymentName: name, buildId },
          // Tollgate counted the pinned runs itself; Temporal's drainage check lags minutes.
          skipDrainage: true,
          identity: options.identity ?? client.options.identity ?? 'tollgate',
        });
        return version;
      } catch (error) {
        if (!hasPollers(error)) throw retireError(error, name, buildId);
        if (Date.now() >= until) {
          throw new TollgateError(
            'VERSION_NOT_RETIRABLE',
            `Temporal still sees workers of build ${buildId} of deployment ${name}: stop them; Temporal forgets a stopped worker about 5 minutes later, then retire again (or pass a wait).`,
            { cause: error },
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      }
    }
  }

  /**
   * Moves a pinned run that waits on a person to `options.to` (default: the current build), once
   * that build's workers replayed its history; the move is kept in the run's audit trail. Needs
   * `admin`. See `moveRun` for the refusals, each of which leaves the run where it is.
   */
  async move(runId: string, options: MoveRunOptions = {}): Promise<MovedRun> {
    const { taskQueue, seenWithinMs } = this;
    return moveRun({ client: await this.client(), taskQueue, seenWithinMs }, runId, options);
  }

  /**
   * At a worker's start: a deployment that has no current build yet gets this one, so the first
   * release of a deployment takes runs without an operator; unless unversioned workers still poll
   * the queue (a move to deployments under way, where the operator chooses the moment).
   */
  async adoptIfNone(name: string, buildId: string, identity: string): Promise<boolean> {
    const client = await this.client();
    const routing = await describeDeployment(client, name).catch(() => undefined);
    if (routing?.routingConfig?.currentDeploymentVersion?.buildId) return false;
    const pollers = await recentPollers(client, this.taskQueue, this.seenWithinMs);
    if ([...pollers.values()].some((poller) => !poller.deployment)) return false;
    await this.setCurrent(name, buildId, { identity });
    return true;
  }

  private async reportOf(client: Client, name: string): Promise<DeploymentReport> {
    const info = await describeDeployment(client, name);
    const routing = info?.routingConfig;
    const pollers = await this.pollersByBuild(client, name);
    const versions: VersionReport[] = [];
    for (const summary of info?.versionSummaries ?? []) {
      const buildId = summary.deploymentVersion?.buildId;
      if (!buildId) continue;
      // A build Temporal lists but cannot describe yet is still registering: left out for now.
      const serves = await versionServes(client, name, buildId, this.taskQueue).catch(
        (error: unknown) => {
          if (isTollgateError(error, 'DEPLOYMENT_NOT_FOUND')) return false;
          throw error;
        },
      );
      if (!serves) continue;
      const status = statusOf(summary.status);
      const [openRuns, parkedRuns] = await this.pinnedRuns(client, name, buildId);
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

  private async pollersByBuild(client: Client, name: string): Promise<Map<string, number>> {
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
  private async pinnedRuns(
    client: Client,
    name: string,
    buildId: string,
  ): Promise<[number, number]> {
    const pinned =
      `WorkflowType = ${quote(AGENT_RUN_WORKFLOW)} AND TaskQueue = ${quote(this.taskQueue)} AND ExecutionStatus = 'Running'` +
      ` AND TemporalWorkerDeploymentVersion = ${quote(`${name}:${buildId}`)} AND TemporalWorkflowVersioningBehavior = 'Pinned'`;
    const parked = `${pinned} AND ${SEARCH_ATTRIBUTES.status.name} IN ('awaiting-approval', 'suspended')`;
    const [open, waiting] = await Promise.all([
      client.workflow.count(pinned),
      client.workflow.count(parked),
    ]);
    return [open.count, waiting.count];
  }

  private refuseStranding(client: Client, name: string, buildId: string): Promise<void> {
    const { taskQueue, seenWithinMs } = this;
    return refuseStrandingSwitch(client, { name, buildId, taskQueue, seenWithinMs });
  }

  /** Temporal knows a version only once its workers polled: a fresh build is retried briefly. */
  private async untilRegistered(name: string, buildId: string, change: () => Promise<unknown>) {
    const until = Date.now() + 15_000;
    for (;;) {
      try {
        await change();
        return;
      } catch (error) {
        const code = isGrpcServiceError(error) ? error.code : undefined;
        const unknownYet = code === GRPC_NOT_FOUND || code === GRPC_FAILED_PRECONDITION;
        if (!unknownYet || Date.now() >= until) throw routingError(error, name, buildId);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }
}
