import type { RunStatus } from '../common/wire.js';
import { SEARCH_ATTRIBUTES } from '../common/wire.js';
import { closesExecution, type HistoryEvent } from './run-ending.js';

/**
 * How a tail reads the run's log: `each-change` after every workflow task that completed (a
 * stream shows chunks as they come); `at-ends` only where the run may have reached a `finish`,
 * for a caller that wants the outcome alone (`generate()`): the chunks logged on the way are read
 * with the end, in one go, and a remote reader sends one query per stretch instead of one per
 * workflow task.
 */
export type LogReading = 'each-change' | 'at-ends';

/**
 * Whether a batch of history events, holding a completed workflow task, may have brought the
 * run to a `finish` in its log: the run closed, or its latest completed task published a status
 * other than `running` or started no activity and no child run (it waits on something outside).
 * Only the latest task counts: a tail's first batch is the history so far, whose earlier tasks
 * parked the run before the decision that the tail follows. A task that logs a `finish` and also
 * starts work under an unchanged status is read once that work's task completes, or at the
 * tail's idle read: late, never missed.
 */
export function mayHaveFinished(events: readonly HistoryEvent[]): boolean {
  let working = false;
  let waiting = false;
  for (const event of events) {
    if (closesExecution(event)) return true;
    if (event.workflowTaskCompletedEventAttributes) working = waiting = false;
    if (publishesWaiting(event)) waiting = true;
    if (
      event.activityTaskScheduledEventAttributes ||
      event.startChildWorkflowExecutionInitiatedEventAttributes
    ) {
      working = true;
    }
  }
  return waiting || !working;
}

const RUNNING: RunStatus = 'running';
const utf8 = new TextDecoder();

/** An upsert of `TollgateStatus` to anything but `running`; an unreadable one counts. */
function publishesWaiting(event: HistoryEvent): boolean {
  const fields =
    event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
  const status = fields?.[SEARCH_ATTRIBUTES.status.name];
  if (!status) return false;
  try {
    return JSON.parse(utf8.decode(status.data ?? new Uint8Array())) !== RUNNING;
  } catch {
    return true;
  }
}
