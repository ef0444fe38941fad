import type { Chunk } from '../common/chunks.js';

/**
 * A chunk seen while it is produced, before the workflow records it at `offset`. A
 * `text-withdrawn` chunk (at the step's first text offset) says the step's attempt failed: the
 * text it published will not be recorded. JSON-safe: it crosses processes as is.
 */
export interface LiveChunk {
  /** The log offset this chunk is meant for; the log decides (it is provisional until then). */
  offset: number;
  chunk: Chunk;
  /** The log offset where the model step's text begins: every chunk of one step shares it. */
  step: number;
  /** The step's activity attempt that streamed it, from 1: a later attempt replaces an earlier one. */
  attempt: number;
}

export type LiveListener = (live: LiveChunk) => void;

/** What a process does with live chunks: a worker publishes, an API server subscribes. */
export type LiveRole = 'publish' | 'subscribe';

/**
 * Carries live text from the process that runs a model step to the processes that stream the
 * run. Delivery is best effort and at most once: the durable chunk log stays the truth, and a
 * reader that misses deltas (or has no transport) sees the text when the log records it. Tollgate
 * ships an in-process bus (the default) and a Redis one; anything with publish/subscribe (NATS,
 * Postgres LISTEN) fits behind this interface.
 */
export interface LiveDeltaTransport {
  /**
   * Hands `live` to the run's subscribers. Never rejects: a chunk that cannot be delivered is
   * dropped. Resolves once the chunk left this process (or was dropped).
   */
  publish(runId: string, live: LiveChunk): Promise<void>;
  /**
   * Calls `listener` with the run's live chunks published from about now on, in the order one
   * publisher sent them, until the returned function is called.
   */
  subscribe(runId: string, listener: LiveListener): () => void;
  /**
   * Connects ahead of first use, so the first model step's deltas are not lost to a connection
   * still opening. Resolves once connected, or once connecting failed (never rejects).
   */
  open?(role: LiveRole): Promise<void>;
  /** Releases connections; publish and subscribe do nothing afterwards. */
  close(): Promise<void>;
}
