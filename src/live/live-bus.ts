import type { Chunk } from '../common/chunks.js';

/**
 * A chunk seen while it is produced, before the workflow records it at `offset`. A
 * `text-withdrawn` chunk (at the step's first text offset) says the step's attempt failed: the
 * text it published will not be recorded.
 */
export interface LiveChunk {
  offset: number;
  chunk: Chunk;
}

type Listener = (live: LiveChunk) => void;

/**
 * In-process delivery of text deltas while a model streams. The durable chunk log only learns a
 * step's text when the step's activity completes; a client in the process that runs the activity
 * gets the deltas here as they arrive. Other processes read the durable log.
 */
export class LiveBus {
  private readonly listeners = new Map<string, Set<Listener>>();

  subscribe(runId: string, listener: Listener): () => void {
    let set = this.listeners.get(runId);
    if (!set) this.listeners.set(runId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(runId);
    };
  }

  publish(runId: string, live: LiveChunk): void {
    for (const listener of this.listeners.get(runId) ?? []) listener(live);
  }
}

/** The process's bus: activities publish to it and clients of the same process subscribe. */
export const liveBus = new LiveBus();
