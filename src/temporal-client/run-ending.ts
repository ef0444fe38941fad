import type { temporal } from '@temporalio/proto';
import { makeChunk, type ChunkOf } from '../common/chunks.js';
import { TollgateError, type TollgateErrorCode } from '../common/errors.js';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * The `error` chunk that ends a stream of a run closed from outside Tollgate: terminated (the
 * Temporal CLI or UI, a client, the history size limit), timed out (`workflowExecutionTimeout`
 * or `workflowRunTimeout`) or cancelled, so its log holds no `finish`. A failed run gets one too,
 * for a stream that could not read its log's end: with the code its failure names when Tollgate
 * failed it. `undefined` for a close the run's own log explains (completed, continued as new).
 */
export function endedFromOutside(runId: string, close: HistoryEvent): ChunkOf<'error'> | undefined {
  const terminated = close.workflowExecutionTerminatedEventAttributes;
  if (terminated) {
    const reason = terminated.reason || undefined;
    return ending(
      runId,
      'RUN_TERMINATED',
      `Run ${runId} was terminated${reason ? `: ${reason}` : ''}; it will not go on, start a new run.`,
      reason,
    );
  }
  if (close.workflowExecutionTimedOutEventAttributes) {
    return ending(
      runId,
      'RUN_TIMED_OUT',
      `Run ${runId} reached its Temporal execution timeout and was closed; start a new run, with a longer timeout if it needs one.`,
    );
  }
  if (close.workflowExecutionCanceledEventAttributes) {
    return ending(
      runId,
      'RUN_CANCELLED',
      `Run ${runId} was cancelled through Temporal before it finished; start a new run to go on.`,
    );
  }
  const failed = close.workflowExecutionFailedEventAttributes;
  if (failed) {
    const reason = failed.failure?.message || undefined;
    // A run Tollgate failed names its code in the failure's type (`tollgate.PAYLOAD_TOO_LARGE`):
    // its log holds its own `error`, which this ending stands in for when the log cannot be read.
    const code = TollgateError.codeOfFailureType(failed.failure?.applicationFailureInfo?.type);
    if (code) return ending(runId, code, `Run ${runId} failed: ${reason ?? code}`, reason);
    return ending(
      runId,
      'RUN_FAILED',
      `Run ${runId} failed without a finish${reason ? `: ${reason}` : ''}; its history in Temporal shows why.`,
      reason,
    );
  }
  return undefined;
}

/** A run that closed with no `finish` in its log and no close event that says why. */
export function closedWithoutFinish(runId: string): ChunkOf<'error'> {
  return ending(
    runId,
    'RUN_FAILED',
    `Run ${runId} closed without a finish in its log; its history in Temporal shows why.`,
  );
}

function ending(
  runId: string,
  code: TollgateErrorCode,
  error: string,
  reason?: string,
): ChunkOf<'error'> {
  return makeChunk(runId, 'error', { error, code, ...(reason ? { reason } : {}) });
}

/** An event that ends its execution, however it ended. */
export function closesExecution(event: HistoryEvent): boolean {
  return Boolean(
    event.workflowExecutionCompletedEventAttributes ||
    event.workflowExecutionFailedEventAttributes ||
    event.workflowExecutionTerminatedEventAttributes ||
    event.workflowExecutionTimedOutEventAttributes ||
    event.workflowExecutionCanceledEventAttributes ||
    event.workflowExecutionContinuedAsNewEventAttributes,
  );
}
