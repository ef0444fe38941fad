import { ApplicationFailure, type ActivityFailure } from '@temporalio/workflow';
import { TollgateError } from '../common/errors.js';
import { tollgateFailure } from '../common/failure.js';
import { failureMessage } from './tool-results.js';

/**
 * Fails the run with the cause's own code (e.g. `tollgate.AGENT_NOT_FOUND`) so clients can map
 * it; any other activity failure fails the run as `RUN_FAILED`.
 */
export function asRunFailure(error: ActivityFailure): ApplicationFailure {
  const cause = error.cause;
  const code =
    cause instanceof ApplicationFailure ? TollgateError.codeOfFailureType(cause.type) : undefined;
  return tollgateFailure(code ?? 'RUN_FAILED', failureMessage(error), { cause: error });
}
