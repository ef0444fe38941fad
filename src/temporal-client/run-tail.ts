import type { Client } from '@temporalio/client';
import { makeChunk, type Chunk, type ChunkSlice } from '../common/chunks.js';
import { chunksQuery } from '../common/messages.js';
import type { LiveChunk, LiveDeltaTransport } from '../live/live-transport.js';
import { TollgateError } from '../common/errors.js';
import { abortableCall } from './abortable-call.js';
import { isTransientReadFailure, toTollgateError } from './errors.js';
import { closedWithoutFinish, endedFromOutside, type HistoryEvent } from './run-ending.js';
import type { StreamItem } from '../stream/stream-items.js';

/** Longest wait between two reads of the chunk log when nothing signals a change. */
const IDLE_READ_MS = 2000;

/**
 * Live chunks of a run, collected from the moment of subscription. Subscribe before starting or
 * deciding, so deltas of a model step that begins right away are not missed. Chunks may come
 * from another process: a withdrawal, or the first chunk of a later attempt of the same step,
 * drops what the earlier attempt sent, and late chunks of a replaced attempt are ignored.
 */
export class LiveSubscription {
  private readonly chunks = new Map<number, Chunk>();
  private withdrawn = false;
  /** Per step (its first text offset): the attempt shown, and whether it was withdrawn. */
  private readonly attempts = new Map<number, { attempt: number; withdrawn: boolean }>();
  private readonly unsubscribe: () => void;
  onChunk: (() => void) | undefined;

  constructor(bus: LiveDeltaTransport, runId: string) {
    this.unsubscribe = bus.subscribe(runId, (live: LiveChunk) => {
      if (!this.accept(live)) return;
      if (live.chunk.type !== 'text-withdrawn') this.chunks.set(live.offset, live.chunk);
      this.onChunk?.();
    });
  }

  /** False for a chunk of an attempt already replaced or withdrawn. */
  private accept({ step, attempt, chunk }: LiveChunk): boolean {
    const known = this.attempts.get(step);
    const withdrawal = chunk.type === 'text-withdrawn';
    if (known && (attempt < known.attempt || (attempt === known.attempt && known.withdrawn))) {
      return false;
    }
    if ((known && attempt > known.attempt) || withdrawal) {
      // The attempt that streamed these failed; a retry streams its own from the same offset.
      this.chunks.clear();
      this.withdrawn = true;
    }
    this.attempts.set(step, { attempt, withdrawn: withdrawal });
    return true;
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
  // Live text alone does not make the log grow: it is passed on without reading the log.
  live.onChunk = () => changes.notify(false);
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
  let readLog = true;
  let readAt = 0;
  /** The live chunks that continue the log where the reader is. */
  const liveItems = function* (): Generator<StreamItem> {
    liveAt = Math.max(liveAt, next);
    if (live.takeWithdrawal()) {
      yield { chunk: makeChunk(runId, 'text-withdrawn', { text: '' }), live: liveAt };
      liveAt = next;
    }
    for (let chunk = live.take(liveAt); chunk; chunk = live.take(liveAt)) {
      yield { chunk, live: liveAt++ };
    }
  };
  try {
    for (;;) {
      const shutDown = () =>
        new TollgateError(
          'SHUT_DOWN',
          `The Tollgate following run ${runId} was shut down; observe the run again from offset ${next}.`,
        );
      if (lifetime.aborted) throw shutDown();
      // Read after learning of the close, so the read holds every chunk the run logged.
      const closedBy = readLog ? closeEvent : undefined;
      let slice: LogRead = { chunks: [], offset: next, total: next, closed: false };
      try {
        if (readLog) {
          readAt = Date.now();
          const reading = readLogPatiently(client, handle, next, watcher.signal);
          const read = reading.then(
            () => true,
            () => true,
          );
          // Live text that comes while the log is read goes out at once, not after the read.
          while ((await Promise.race([read, changes.next()])) !== true) yield* liveItems();
          slice = await reading;
        }
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
      // An execution before a continue-as-new answered: the newest holds what follows.
      if (slice.earlier) continue;
      if (slice.closed && next >= slice.total) return;
      if (closedBy && next >= slice.total) {
        yield { chunk: endedFromOutside(runId, closedBy) ?? closedWithoutFinish(runId) };
        return;
      }
      yield* liveItems();
      // Steady live text must not hold off the idle read, which covers a failing history watch.
      readLog = (await changes.wait(IDLE_READ_MS)) || Date.now() - readAt >= IDLE_READ_MS;
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
): Promise<LogRead> {
  const giveUpAt = Date.now() + OUTAGE_PATIENCE_MS;
  for (;;) {
    try {
      return await abortableCall(client.connection, signal, () => readLog(client, handle, offset));
    } catch (error) {
      if (signal.aborted || !isTransientReadFailure(error) || Date.now() >= giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_RETRY_MS));
    }
  }
}

/** A slice of the log; `earlier` when an execution before the newest one answered it. */
type LogRead = ChunkSlice & { earlier?: boolean };

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
      if (!response.nextPageToken?.length) {
        // The run went on in a new execution: watch that one's history from its start.
        if (!last?.workflowExecutionContinuedAsNewEventAttributes) return last;
        nextPageToken = undefined;
        continue;
      }
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
  private logMayHaveGrown = false;
  private wake: (() => void) | undefined;
  private waiters: Array<() => void> = [];

  /** `log`: false when only live text came, which needs no read of the log. */
  notify(log = true): void {
    this.pending = true;
    this.logMayHaveGrown ||= log;
    this.wake?.();
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Resolves on the next notification, leaving it pending for `wait()`. */
  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Resolves on a notification or after `timeoutMs`; true when the log should be read. */
  async wait(timeoutMs: number): Promise<boolean> {
    let timedOut = false;
    if (!this.pending) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timedOut = true;
          resolve();
        }, timeoutMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const readLog = timedOut || this.logMayHaveGrown;
    this.wake = undefined;
    this.pending = false;
    this.logMayHaveGrown = false;
    return readLog;
  }
}
