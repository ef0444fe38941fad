import type { LiveDeltaTransport, LiveListener, LiveChunk } from './live-transport.js';

export type { LiveChunk } from './live-transport.js';

/**
 * In-process delivery of text deltas while a model streams: a client in the process that runs
 * the activity gets them as they arrive. Without a broker (see `LiveDeltaOptions`), other
 * processes read the durable log only.
 */
export class LiveBus implements LiveDeltaTransport {
  private readonly listeners = new Map<string, Set<LiveListener>>();

  subscribe(runId: string, listener: LiveListener): () => void {
    let set = this.listeners.get(runId);
    if (!set) this.listeners.set(runId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(runId);
    };
  }

  publish(runId: string, live: LiveChunk): Promise<void> {
    for (const listener of this.listeners.get(runId) ?? []) listener(live);
    return Promise.resolve();
  }

  /** The process's bus outlives any one Tollgate: nothing to release. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The process's bus: activities publish to it and clients of the same process subscribe. */
export const liveBus = new LiveBus();
