import type { LiveDeltaTransport, LiveListener, LiveChunk } from './live-transport.js';
import { RunListeners } from './run-listeners.js';

export type { LiveChunk } from './live-transport.js';

/**
 * In-process delivery of text deltas while a model streams: a client in the process that runs
 * the activity gets them as they arrive. Without a broker (see `LiveDeltaOptions`), other
 * processes read the durable log only.
 */
export class LiveBus implements LiveDeltaTransport {
  private readonly listeners = new RunListeners<LiveChunk>();

  subscribe(runId: string, listener: LiveListener): () => void {
    return this.listeners.subscribe(runId, listener);
  }

  publish(runId: string, live: LiveChunk): Promise<void> {
    this.listeners.publish(runId, live);
    return Promise.resolve();
  }

  /** The process's bus outlives any one Tollgate: nothing to release. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The process's bus: activities publish to it and clients of the same process subscribe. */
export const liveBus = new LiveBus();
