import { isGrpcServiceError, type Client } from '@temporalio/client';
import { TollgateError } from '../common/errors.js';
import { requireAction, type Scope } from '../common/scope.js';
import {
  DeploymentReader,
  type DeploymentReport,
  type VersionReport,
} from './deployment-report.js';

export type { DeploymentReport, VersionReport, VersionStatus } from './deployment-report.js';

const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;

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
    const names = name !== undefined ? [name] : await this.names(client);
    const reports = await Promise.all(names.map((each) => this.reportOf(client, each)));
    return reports.filter((report) => name !== undefined || report.versions.length > 0);
  }

  /** Makes `buildId` take every new run (and every auto-upgrade run at its next task). */
  async setCurrent(name: string, buildId: string, caller: DeploymentCaller = {}): Promise<void> {
    requireAction(caller.scope, 'admin');
    const client = await this.client();
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
    caller: DeploymentCaller = {},
  ): Promise<void> {
    requireAction(caller.scope, 'admin');
    if (!Number.isFinite(percent) || percent < 0 || percent > 100) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        `A ramp is a percentage from 0 to 100, not ${JSON.stringify(percent)}.`,
      );
    }
    const client = await this.client();
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
   * At a worker's start: a deployment that has no current build yet gets this one, so the first
   * release of a deployment takes runs without an operator; unless unversioned workers still poll
   * the queue (a move to deployments under way, where the operator chooses the moment).
   */
  async adoptIfNone(name: string, buildId: string, identity: string): Promise<boolean> {
    const client = await this.client();
    const routing = await this.describe(client, name).catch(() => undefined);
    if (routing?.routingConfig?.currentDeploymentVersion?.buildId) return false;
    const pollers = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: this.taskQueue, kind: 1 },
      taskQueueType: 1,
    });
    const since = Date.now() - this.seenWithinMs;
    const unversioned = (pollers.pollers ?? []).some(
      (poller) =>
        !poller.deploymentOptions?.deploymentName &&
        Number(poller.lastAccessTime?.seconds ?? 0) * 1000 >= since,
    );
    if (unversioned) return false;
    await this.setCurrent(name, buildId, { identity });
    return true;
  }

  private async names(client: Client): Promise<string[]> {
    const names: string[] = [];
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await client.workflowService.listWorkerDeployments({
        namespace: client.options.namespace,
        pageSize: 100,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
      for (const summary of page.workerDeployments ?? [])
        if (summary.name) names.push(summary.name);
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    return names;
  }

  private async describe(client: Client, name: string) {
    try {
      const answer = await client.workflowService.describeWorkerDeployment({
        namespace: client.options.namespace,
        deploymentName: name,
      });
      return answer.workerDeploymentInfo ?? undefined;
    } catch (error) {
      throw routingError(error, name);
    }
  }

  private async reportOf(client: Client, name: string): Promise<DeploymentReport> {
    const reader = new DeploymentReader(client, this.taskQueue, this.seenWithinMs);
    return reader.report(name, await this.describe(client, name));
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

function hasPollers(error: unknown): boolean {
  return (
    isGrpcServiceError(error) &&
    error.code === GRPC_FAILED_PRECONDITION &&
    /active pollers/i.test(error.details ?? error.message)
  );
}

function notFound(name: string, buildId?: string): TollgateError {
  return new TollgateError(
    'DEPLOYMENT_NOT_FOUND',
    buildId === undefined
      ? `Temporal knows no Worker Deployment named "${name}" (it appears once a worker with worker.deployment polls).`
      : `Deployment "${name}" has no build "${buildId}" serving task queue the runs use (a build appears once its workers poll).`,
  );
}

/** A routing change or a read that Temporal refused: an unknown deployment or build is typed. */
function routingError(error: unknown, name: string, buildId?: string): unknown {
  if (!isGrpcServiceError(error)) return error;
  if (error.code === GRPC_NOT_FOUND) return notFound(name, buildId);
  if (
    error.code === GRPC_FAILED_PRECONDITION &&
    /not found|no worker deployment/i.test(error.details)
  ) {
    return notFound(name, buildId);
  }
  return error;
}

function retireError(error: unknown, name: string, buildId: string): unknown {
  if (isGrpcServiceError(error) && error.code === GRPC_FAILED_PRECONDITION) {
    return new TollgateError(
      'VERSION_NOT_RETIRABLE',
      `Temporal refused to retire build ${buildId} of deployment "${name}": ${error.details}`,
      { cause: error },
    );
  }
  return routingError(error, name, buildId);
}
