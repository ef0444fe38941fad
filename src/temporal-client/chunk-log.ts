import type { Client } from '@temporalio/client';
import type { ChunkSlice } from '../common/chunks.js';
import { chunksQuery } from '../common/messages.js';
import { abortableCall } from './abortable-call.js';
import { TollgateError } from '../common/errors.js';
import { isNoWorkerReadFailure, isTransientReadFailure, toTollgateError } from './errors.js';

/** How long a tail keeps reading through answers that say Temporal cannot serve the run now. */
const OUTAGE_PATIENCE_MS = 60_000;
const OUTAGE_RETRY_MS = 1000;

/**
 * Reads the log, riding out a server that restarts under a tail: for a moment it answers that the
 * run (or its namespace) does not exist, cannot be reached, times out or has no worker. The run
 * was there when the tail began, so such answers are retried for up to a minute before they end
 * the stream: with `WORKER_UNAVAILABLE` when no worker answered for the run all that time (the
 * run itself waits in Temporal; observe it again once a worker runs).
 */
export async function readLogPatiently(
  client: Client,
  handle: ReturnType<Client['workflow']['getHandle']>,
  offset: number,
  signal: AbortSignal,
): Promise<LogRead> {
  const giveUpAt = Date.now() + OUTAGE_PATIENCE_MS;
  for (;;) {
    try {
      return await abortableCall(client.connection, signal, () => readLog(client, handle, offset));
    } catch (error) {
      if (signal.aborted || !isTransientReadFailure(error)) throw error;
      if (Date.now() >= giveUpAt) throw isNoWorkerReadFailure(error) ? noWorker(handle) : error;
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_RETRY_MS));
    }
  }
}

function noWorker(handle: { workflowId: string }): TollgateError {
  return new TollgateError(
    'WORKER_UNAVAILABLE',
    `No worker answered for run ${handle.workflowId} for ${OUTAGE_PATIENCE_MS / 1000} s, so its log cannot be read; the run waits in Temporal. Start a worker for its task queue, then observe it again.`,
  );
}

/** A slice of the log; `earlier` when an execution before the newest one answered it. */
export type LogRead = ChunkSlice & { earlier?: boolean };

/**
 * Reads the log from `offset`. A run that continued as new holds the chunks of its earlier
 * executions in those executions: an offset below the newest one's base is read from the
 * execution before it, and so on down the chain (a query of a closed execution replays it).
 */
async function readLog(
  client: Client,
  handle: ReturnType<Client['workflow']['getHandle']>,
  offset: number,
): Promise<LogRead> {
  try {
    let slice: LogRead = await handle.query(chunksQuery, { offset });
    while (slice.base !== undefined && offset < slice.base && slice.previousExecution) {
      const earlier = client.workflow.getHandle(handle.workflowId, slice.previousExecution);
      slice = await earlier.query(chunksQuery, { offset });
      slice.earlier = true;
    }
    return slice;
  } catch (error) {
    throw await toTollgateError(error, handle.workflowId);
  }
}
