import type { Client } from '@temporalio/client';
import { makeChunk, type Chunk, type ChunkSlice } from '../common/chunks.js';
import { QUERIES } from '../common/wire.js';
import type { LiveBus, LiveChunk } from '../live/live-bus.js';
import { TollgateError } from '../common/errors.js';
import { abortableCall } from './abortable-call.js';
import { isTransientReadFailure, toTollgateError } from './errors.js';
import { closedWithoutFinish, endedFromOutside, type HistoryEvent } from './run-ending.js';
import type { StreamItem } from './stream-items.js';

/** Longest wait between two reads of the chunk log when nothing signals a change. */
const IDLE_READ_MS = 2000;

/**
 * Live chunks of a run, collected from the moment of subscription. Subscribe before starting or
 * deciding, so deltas of a model step that begins right away are not missed.
 */
export class LiveSubscription {
  private readonly chunks = new Map<number, Chunk>();
  private withdrawn = false;
  private readonly unsubscribe: () => void;
  onChunk: (() => void) | undefined;

  constructor(bus: LiveBus, runId: string) {
    this.unsubscribe = bus.subscribe(runId, (live: LiveChunk) => {
      if (live.chunk.type === 'text-withdrawn') {
        // The attempt that streamed these failed; a retry streams its own from the same offset.
        this.chunks.clear();
        this.withdrawn = true;
      } else this.chunks.set(live.offset, live.chunk);
      this.onChunk?.();
    });
  }

  take(offset: number): Chunk | undefined {
    const chunk = this.chunks.get(offset);
    for (const key of this.chunks.keys()) if (key <= offset) this.chunks.delete(key);
    return chunk;
  }

  /** True once after a model step's attempt withdrew the live text it had published. */
  takeWithdrawal(): boolean {
    const withdrawn = this.withdrawn;
    this.withdrawn = false;
    return withdrawn;
  }

  close(): void {
    this.unsubscribe();
    this.chunks.clear();
  }
}

/**
 * Follows a run's chunk log from `offset` up to and including the next `finish` chunk. The
 * workflow's log (a query) is the truth; a history long-poll says when it may have grown, and
 * in-process live deltas fill the gap while a model step streams. Live deltas claim no offset:
 * the log's chunks follow them and the stream's reader confirms or withdraws them
 * (`LiveTextMerge`). A run closed without a `finish` in its log (terminated, timed out or
 * cancelled from outside) ends the tail with an `error` chunk naming how it ended.
 */
export async function* tailRun(
  client: Client,
  runId: string,
  offset: number,
  live: LiveSubscription,
  lifetime: AbortSignal,
): AsyncGenerator<StreamItem> {
  const handle = client.workflow.getHandle(runId);
  const changes = new ChangeSignal();
  live.onChunk = () => changes.notify();
  const watcher = new AbortController();
  const stop = () => watcher.abort();
  lifetime.addEventListener('abort', stop);
  let closeEvent: HistoryEvent | undefined;
  const watching = watchHistory(client, runId, watcher.signal, () => changes.notify()).then(
    (event) => {
      closeEvent = event;
      changes.notify();
    },
  );
  watcher.signal.addEventListener('abort', () => changes.notify());
  let next = offset;
  let liveAt = offset;
  try {
    for (;;) {
      const shutDown = () =>
        new TollgateError(
          'SHUT_DOWN',
          `The Tollgate following run ${runId} was shut down; observe the run again from offset ${next}.`,
        );
      if (lifetime.aborted) throw shutDown();
      // Read after learning of the close, so the read holds every chunk the run logged.
      const closedBy = closeEvent;
      let slice: ChunkSlice;
      try {
        slice = await readLogPatiently(client, handle, next, watcher.signal);
      } catch (error) {
        // A read cut short by shutdown is the shutdown, not a failure of the run.
        if (lifetime.aborted) throw shutDown();
        const ending = closedBy && endedFromOutside(runId, closedBy);
        if (!ending) throw error;
        yield { chunk: ending };
        return;
      }
      for (const chunk of slice.chunks) {
        yield { chunk, offset: next++ };
        if (chunk.type === 'finish') return;
      }
      if (slice.closed && next >= slice.total) return;
      if (closedBy && next >= slice.total) {
        yield { chunk: endedFromOutside(runId, closedBy) ?? closedWithoutFinish(runId) };
        return;
      }
      liveAt = Math.max(liveAt, next);
      if (live.takeWithdrawal()) {
        yield { chunk: makeChunk(runId, 'text-withdrawn', { text: '' }), live: liveAt };
        liveAt = next;
      }
      for (let chunk = live.take(liveAt); chunk; chunk = live.take(liveAt)) {
        yield { chunk, live: liveAt++ };
      }
      await changes.wait(IDLE_READ_MS);
    }
  } finally {
    lifetime.removeEventListener('abort', stop);
    watcher.abort();
    live.close();
    await watching;
  }
}

/** How long a tail keeps reading through answers that say Temporal cannot serve the run now. */
const OUTAGE_PATIENCE_MS = 60_000;
const OUTAGE_RETRY_MS = 1000;

/**
 * Reads the log, riding out a server that restarts under a tail: for a moment it answers that the
 * run (or its namespace) does not exist, cannot be reached, times out or has no worker. The run
 * was there when the tail began, so such answers are retried for up to a minute before they end
 * the stream.
 */
async function readLogPatiently(
  client: Client,
  handle: ReturnType<Client['workflow']['getHandle']>,
  offset: number,
  signal: AbortSignal,
): Promise<ChunkSlice> {
  const giveUpAt = Date.now() + OUTAGE_PATIENCE_MS;
  for (;;) {
    try {
      return await abortableCall(client.connection, signal, () => readLog(handle, offset));
    } catch (error) {
      if (signal.aborted || !isTransientReadFailure(error) || Date.now() >= giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_RETRY_MS));
    }
  }
}

async function readLog(
  handle: ReturnType<Client['workflow']['getHandle']>,
  offset: number,
): Promise<ChunkSlice> {
  try {
    return await handle.query<ChunkSlice, [{ offset: number }]>(QUERIES.chunks, { offset });
  } catch (error) {
    throw await toTollgateError(error, handle.workflowId);
  }
}

/**
 * Long-polls the run's history and calls `onEvent` whenever it grows. Returns the close event
 * once the run has closed; `undefined` when `signal` aborts. A refused long poll is tried again
 * after a pause (reads fall back to the idle timer meanwhile).
 */
async function watchHistory(
  client: Client,
  runId: string,
  signal: AbortSignal,
  onEvent: () => void,
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
        // The log changes only when a workflow task completes: activity and task-scheduling events
        // alone would cost the worker a query each and show nothing new.
        if (events.some((event) => event.workflowTaskCompletedEventAttributes)) onEvent();
      }
      if (!response.nextPageToken?.length) return last;
      nextPageToken = response.nextPageToken;
    } catch {
      await pause(IDLE_READ_MS, signal);
    }
  }
  return undefined;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
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

/** A level-triggered wake-up: notifications while nobody waits are not lost. */
class ChangeSignal {
  private pending = false;
  private wake: (() => void) | undefined;

  notify(): void {
    this.pending = true;
    this.wake?.();
  }

  async wait(timeoutMs: number): Promise<void> {
    if (!this.pending) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.wake = undefined;
    this.pending = false;
  }
}
