import { ApplicationFailure } from '@temporalio/common';
import { FAILURE_TYPE_PREFIX, type TollgateErrorCode } from './errors.js';

/** How a Tollgate failure is retried and what it wraps. */
export interface TollgateFailureOptions {
  /** Whether Temporal may retry the failed activity. Default `true`: the user must fix something. */
  nonRetryable?: boolean;
  /** Pause before the next attempt, ms, when the failure is retryable. Default: the retry policy's. */
  nextRetryDelay?: number;
  /** The error this failure reports, kept as its cause. */
  cause?: Error;
  /** JSON-safe values the failure carries to the workflow (`ApplicationFailure.details`). */
  details?: unknown[];
}

/**
 * The one way a Tollgate error crosses Temporal: an `ApplicationFailure` whose type is
 * `tollgate.<code>`, which clients turn back into a `TollgateError` with that code. Used by the
 * workflow (refusals, expiries, failed runs) and the activities alike; workflow-safe.
 */
export function tollgateFailure(
  code: TollgateErrorCode,
  message: string,
  options: TollgateFailureOptions = {},
): ApplicationFailure {
  const { nonRetryable = true, nextRetryDelay, cause, details } = options;
  return ApplicationFailure.create({
    type: FAILURE_TYPE_PREFIX + code,
    message,
    nonRetryable,
    ...(nextRetryDelay !== undefined ? { nextRetryDelay } : {}),
    ...(cause !== undefined ? { cause } : {}),
    ...(details !== undefined ? { details } : {}),
  });
}
