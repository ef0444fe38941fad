import type { Client } from '@temporalio/client';
import type { Chunk, ChunkSlice } from '../common/chunks.js';
import { QUERIES } from '../common/wire.js';
import type { LiveBus, LiveChunk } from '../live/live-bus.js';
import { TollgateError } from '../common/errors.js';
import { isTransientReadFailure, toTollgateError } from './errors.js';

/** Longest wait between two reads of the chunk log when nothing signals a change. */
const IDLE_READ_MS = 2000;

/**
 * Live chunks of a run, collected from the moment of subscription. Subscribe before starting or
 * deciding, so deltas of a model step that begins right away are not missed.
 */
export class LiveSubscription {
  private readonly chunks = new Map<number, Chunk>();
  private readonly unsubscribe: () => void;
  onChunk: (() => void) | undefined;

  constructor(bus: LiveBus, runId: string) {
    this.unsubscribe = bus.subscribe(runId, (live: LiveChunk) => {
      this.chunks.set(live.offset, live.chunk);
      this.onChunk?.();
    });
  }

  take(offset: number): Chunk | undefined {
    const chunk = this.chunks.get(offset);
    for (const key of this.chunks.keys()) if (key <= offset) this.chunks.delete(key);
    return chunk;
  }

  close(): void {
    this.unsubscribe();
    this.chunks.clear();
  }
}

/**
 * Follows a run's chunk log from `offset` up to and including the next `finish` chunk. The
 * workflow's log (a query) is the truth; a history long-poll says when it may have grown, and
 * in-process live deltas fill the gap while a model step streams.
 */
export async function* tailRun(
  client: Client,
  runId: string,
  offset: number,
  live: LiveSubscription,
  lifetime: AbortSignal,
): AsyncGenerator<Chunk> {
  const handle = client.workflow.getHandle(runId);
  const changes = new ChangeSignal();
  live.onChunk = () => changes.notify();
  const watcher = new AbortController();
  const stop = () => watcher.abort();
  lifetime.addEventListener('abort', stop);
  const watching = watchHistory(client, runId, watcher.signal, () => changes.notify());
  watcher.signal.addEventListener('abort', () => changes.notify());
  let next = offset;
  try {
    for (;;) {
      const shutDown = () =>
        new TollgateError(
          'SHUT_DOWN',
          `The Tollgate following run ${runId} was shut down; observe the run again from offset ${next}.`,
        );
      if (lifetime.aborted) throw shutDown();
      const slice = await readLogPatiently(client, handle, next, watcher.signal).catch(
        (error: unknown) => {
          // A read cut short by shutdown is the shutdown, not a failure of the run.
          throw lifetime.aborted ? shutDown() : error;
        },
      );
      for (const chunk of slice.chunks) {
        next++;
        yield chunk;
        if (chunk.type === 'finish') return;
      }
      if (slice.closed && next >= slice.total) return;
      for (let chunk = live.take(next); chunk; chunk = live.take(next)) {
        next++;
        yield chunk;
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
      return await client.connection.withAbortSignal(signal, () => readLog(handle, offset));
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
 * Long-polls the run's history and calls `onEvent` whenever it grows. Ends when the run closes
 * or `signal` aborts; errors only end the watch (reads fall back to the idle timer).
 */
async function watchHistory(
  client: Client,
  runId: string,
  signal: AbortSignal,
  onEvent: () => void,
): Promise<void> {
  let nextPageToken: Uint8Array | undefined;
  try {
    while (!signal.aborted) {
      const response = await client.connection.withAbortSignal(signal, () =>
        client.workflowService.getWorkflowExecutionHistory({
          namespace: client.options.namespace,
          execution: { workflowId: runId },
          waitNewEvent: true,
          maximumPageSize: 256,
          ...(nextPageToken ? { nextPageToken } : {}),
        }),
      );
      if (response.history?.events?.length) onEvent();
      if (!response.nextPageToken?.length) {
        onEvent();
        return;
      }
      nextPageToken = response.nextPageToken;
    }
  } catch {
    // Aborted, or the server refused the long poll: the idle timer keeps the tail going.
  }
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
