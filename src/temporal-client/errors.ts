import {
  QueryNotRegisteredError,
  type Client,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  isGrpcServiceError,
} from '@temporalio/client';
import { ApplicationFailure, NamespaceNotFoundError } from '@temporalio/common';
import { TollgateError } from '../common/errors.js';
import { ConnectDeadlineError } from './connection.js';

const GRPC_NOT_FOUND = 5;
const GRPC_UNAVAILABLE = 14;

/**
 * Turns what the Temporal client throws into the `TollgateError` a user can act on. Other errors
 * (a crash, a server fault) pass through unchanged. Temporal answers NOT_FOUND both for a run it
 * does not know and for a decision sent to a run that has closed; with `client`, the run is
 * described to tell the two apart (`RUN_FINISHED` or `RUN_NOT_FOUND`), instead of reading the
 * answer's words.
 */
export async function toTollgateError(
  error: unknown,
  runId: string,
  client?: Client,
): Promise<unknown> {
  if (error instanceof TollgateError) return error;
  if (error instanceof NamespaceNotFoundError) {
    return new TollgateError(
      'NAMESPACE_NOT_FOUND',
      `Temporal does not know the namespace "${error.namespace}": it does not exist, or the server has just restarted and not loaded it yet. Nothing was changed; check the namespace, or try again.`,
      { cause: error },
    );
  }
  if (grpcCodeIn(error) === GRPC_UNAVAILABLE) {
    return new TollgateError(
      'TEMPORAL_UNAVAILABLE',
      `Temporal could not be reached about run ${runId}. Nothing was changed; try again when the server is back.`,
      { cause: error },
    );
  }
  const failure = applicationFailureIn(error);
  const code = TollgateError.codeOfFailureType(failure?.type);
  if (failure && code) return new TollgateError(code, failure.message, { cause: error });
  if (
    error instanceof WorkflowNotFoundError ||
    (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND)
  ) {
    if (client && (await hasClosed(client, runId))) {
      return new TollgateError(
        'RUN_FINISHED',
        `Run ${runId} has finished; it takes no more decisions.`,
        { cause: error },
      );
    }
    return new TollgateError(
      'RUN_NOT_FOUND',
      `No run with id "${runId}" exists in this namespace.`,
      { cause: error },
    );
  }
  if (error instanceof QueryNotRegisteredError) {
    return new TollgateError('RUN_NOT_FOUND', `Workflow "${runId}" is not a Tollgate agent run.`, {
      cause: error,
    });
  }
  return error;
}

function applicationFailureIn(error: unknown): ApplicationFailure | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof ApplicationFailure) return current;
    if (
      current instanceof WorkflowUpdateFailedError ||
      current instanceof WorkflowFailedError ||
      current instanceof Error
    ) {
      current = (current as Error).cause;
    } else {
      return undefined;
    }
  }
  return undefined;
}

/** Whether the run exists and has closed; `false` when it cannot be described. */
async function hasClosed(client: Client, runId: string): Promise<boolean> {
  try {
    const { status } = await client.workflow.getHandle(runId).describe();
    return status.name !== 'RUNNING';
  } catch {
    return false;
  }
}

/**
 * Temporal could not be reached at all: refused connection (the worker's `TransportError`), the
 * client's connect deadline, or a call answered UNAVAILABLE.
 */
export function isTemporalUnreachable(error: unknown): boolean {
  if (error instanceof TollgateError) return error.code === 'TEMPORAL_UNAVAILABLE';
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'TransportError' ||
    error instanceof ConnectDeadlineError ||
    grpcCodeIn(error) === GRPC_UNAVAILABLE
  );
}

/**
 * DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, UNAVAILABLE: what a server restart or overload
 * answers.
 */
const TRANSIENT_GRPC_CODES: ReadonlySet<number> = new Set([4, 8, 10, GRPC_UNAVAILABLE]);
const GRPC_FAILED_PRECONDITION = 9;
const GRPC_DEADLINE_EXCEEDED = 4;
/**
 * A query while no worker has polled lately: the run's worker is restarting, or the server has
 * just restarted and not seen the pollers again yet. The server gives this FAILED_PRECONDITION no
 * typed detail (a bare gRPC status: `errNoRecentPoller` in Temporal's service/matching/matcher.go),
 * so it is the one answer still told apart by its text (other FAILED_PRECONDITION answers are
 * final).
 */
const NO_POLLER = /no poller seen for task queue recently/;
/**
 * A query while the run's last workflow task failed or timed out (a worker too busy to finish it
 * within its timeout, or one that refused it): Temporal schedules the task again and answers
 * queries once one completes. Worth waiting for; a task that keeps failing (nondeterminism) ends
 * the read after the reader's patience.
 */
const TASK_FAILED = /Workflow Task in failed state/;

/**
 * Whether a failed read (a query, a describe) is worth trying again: Temporal was unreachable,
 * overloaded or restarting, has not reloaded the run or namespace yet, or has seen no worker
 * lately. Only for reads: a decision that timed out may still have been applied.
 */
export function isTransientReadFailure(error: unknown): boolean {
  if (error instanceof TollgateError) {
    return ['RUN_NOT_FOUND', 'TEMPORAL_UNAVAILABLE', 'NAMESPACE_NOT_FOUND'].includes(error.code);
  }
  const grpc = grpcErrorIn(error);
  if (grpc?.code === GRPC_FAILED_PRECONDITION)
    return NO_POLLER.test(grpc.message) || TASK_FAILED.test(grpc.message);
  return grpc !== undefined && TRANSIENT_GRPC_CODES.has(grpc.code);
}

/**
 * Whether a failed read means no worker answered for the run: none has polled its task queue
 * lately, or the query waited for one until its deadline.
 */
export function isNoWorkerReadFailure(error: unknown): boolean {
  const grpc = grpcErrorIn(error);
  if (grpc?.code === GRPC_FAILED_PRECONDITION) return NO_POLLER.test(grpc.message);
  return grpc?.code === GRPC_DEADLINE_EXCEEDED;
}

/** The gRPC status code of `error` or of an error it wraps, if any. */
function grpcCodeIn(error: unknown): number | undefined {
  return grpcErrorIn(error)?.code;
}

/** The gRPC error `error` is or wraps, if any. */
function grpcErrorIn(error: unknown): { code: number; message: string } | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (isGrpcServiceError(current)) return current;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}
