/**
 * The builds of a Worker Deployment as Temporal describes them, what their state means, and
 * Temporal's refusals about them as typed errors: shared by the deployment report, its routing
 * changes and moving a run (docs/deploying.md).
 */
import { isGrpcServiceError, type Client } from '@temporalio/client';
// CommonJS: its `temporal` namespace is no named ESM export (see search-attributes.ts).
import proto from '@temporalio/proto';
import { TollgateError } from '../common/errors.js';

const STATUS = proto.temporal.api.enums.v1.WorkerDeploymentVersionStatus;

const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;

export type VersionStatus = 'current' | 'ramping' | 'draining' | 'drained' | 'inactive';

/** A build's status, from Temporal's enum. */
export function statusOf(status: number | null | undefined): VersionStatus {
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

/** Whether a build may be retired now, and why, in a sentence (`VersionReport`). */
export function verdictOf(
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

/** What Temporal knows of a Worker Deployment: its builds and routing; `DEPLOYMENT_NOT_FOUND`. */
export async function describeDeployment(client: Client, name: string) {
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

/** What Temporal knows of one build; `DEPLOYMENT_NOT_FOUND` when it knows no such build. */
export async function describeVersion(client: Client, name: string, buildId: string) {
  try {
    const answer = await client.workflowService.describeWorkerDeploymentVersion({
      namespace: client.options.namespace,
      deploymentVersion: { deploymentName: name, buildId },
    });
    return answer.workerDeploymentVersionInfo ?? undefined;
  } catch (error) {
    throw routingError(error, name, buildId);
  }
}

/**
 * Whether workers of the build polled `taskQueue`: Temporal keeps the queues a build served, and
 * adds one shortly after the build's first poll of it.
 */
export async function versionServes(
  client: Client,
  name: string,
  buildId: string,
  taskQueue: string,
): Promise<boolean> {
  const queues = (await describeVersion(client, name, buildId))?.taskQueueInfos ?? [];
  return queues.some((queue) => queue.name === taskQueue);
}

/** `DEPLOYMENT_NOT_FOUND`: the deployment, or its build, is unknown to Temporal. */
export function notFound(name: string, buildId?: string): TollgateError {
  return new TollgateError(
    'DEPLOYMENT_NOT_FOUND',
    buildId === undefined
      ? `Temporal knows no Worker Deployment named "${name}" (it appears once a worker with worker.deployment polls).`
      : `Deployment "${name}" has no build "${buildId}" serving task queue the runs use (a build appears once its workers poll).`,
  );
}

/** A routing change or a read that Temporal refused: an unknown deployment or build is typed. */
export function routingError(error: unknown, name: string, buildId?: string): unknown {
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

/** Temporal refused to delete a version because its workers still poll. */
export function hasPollers(error: unknown): boolean {
  return (
    isGrpcServiceError(error) &&
    error.code === GRPC_FAILED_PRECONDITION &&
    /active pollers/i.test(error.details ?? error.message)
  );
}

export function retireError(error: unknown, name: string, buildId: string): unknown {
  if (isGrpcServiceError(error) && error.code === GRPC_FAILED_PRECONDITION) {
    return new TollgateError(
      'VERSION_NOT_RETIRABLE',
      `Temporal refused to retire build ${buildId} of deployment "${name}": ${error.details}`,
      { cause: error },
    );
  }
  return routingError(error, name, buildId);
}

/** The names of every Worker Deployment of the namespace. */
export async function deploymentNames(client: Client): Promise<string[]> {
  const names: string[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listWorkerDeployments({
      namespace: client.options.namespace,
      pageSize: 100,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const summary of page.workerDeployments ?? []) if (summary.name) names.push(summary.name);
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return names;
}
