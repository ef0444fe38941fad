import {
  QueryNotRegisteredError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  isGrpcServiceError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TollgateError } from '../common/errors.js';

const GRPC_NOT_FOUND = 5;

/**
 * Turns what the Temporal client throws into the `TollgateError` a user can act on. Errors that
 * are not the user's (network, server) pass through unchanged.
 */
export async function toTollgateError(error: unknown, runId: string): Promise<unknown> {
  if (error instanceof TollgateError) return error;
  const failure = applicationFailureIn(error);
  const code = TollgateError.codeOfFailureType(failure?.type);
  if (failure && code) return new TollgateError(code, failure.message, { cause: error });
  if (isCompletedError(error)) {
    return new TollgateError(
      'RUN_FINISHED',
      `Run ${runId} has finished; it takes no more decisions.`,
      { cause: error },
    );
  }
  if (
    error instanceof WorkflowNotFoundError ||
    (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND)
  ) {
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

function isCompletedError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return /already completed|workflow execution already finished/i.test(message);
}
