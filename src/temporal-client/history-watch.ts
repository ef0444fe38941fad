import type { Client } from '@temporalio/client';
import { abortableCall } from './abortable-call.js';
import type { HistoryEvent } from './run-ending.js';

/** Wait before the first read of the chunk log that nothing signalled, and between failed polls. */
export const IDLE_READ_MS = 2000;
/** Longest wait between two reads of the chunk log while nothing signals a change. */
export const MAX_IDLE_READ_MS = 30_000;

/**
 * Long-polls the run's history and calls `onEvent` with the new events whenever it grows.
 * Returns the close event once the run has closed; `undefined` when `signal` aborts. A refused
 * long poll is tried again after a pause, and `onEvent` is called then too, with no events (the
 * log is read after each failed poll).
 */
export async function watchHistory(
  client: Client,
  runId: string,
  signal: AbortSignal,
  onEvent: (events: HistoryEvent[]) => void,
): Promise<HistoryEvent | undefined> {
  let nextPageToken: Uint8Array | undefined;
  let last: HistoryEvent | undefined;
  while (!signal.aborted) {
    try {
      const response = await abortableCall(client.connection, signal, () =>
        client.workflowService.getWorkflowExecutionHistory({
          namespace: client.options.namespace,
          execution: { workflowId: runId },
          waitNewEvent: true,
          maximumPageSize: 256,
          ...(nextPageToken ? { nextPageToken } : {}),
        }),
      );
      const events = response.history?.events ?? [];
      if (events.length > 0) {
        last = events.at(-1);
        onEvent(events);
      }
      if (!response.nextPageToken?.length) {
        // The run went on in a new execution: watch that one's history from its start.
        if (!last?.workflowExecutionContinuedAsNewEventAttributes) return last;
        nextPageToken = undefined;
        continue;
      }
      nextPageToken = response.nextPageToken;
    } catch {
      await pause(IDLE_READ_MS, signal);
      // Events may have come while the watch was refused: the log is read after each failed poll.
      if (!signal.aborted) onEvent([]);
    }
  }
  return undefined;
}

/** Waits `ms`, or less when `signal` aborts; at once when it has aborted already. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
