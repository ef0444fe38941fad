import type { Chunk } from '../common/chunks.js';
import { logRelay } from '../live/log-relay.js';
import type { LiveChunk, LiveDeltaTransport } from '../live/live-transport.js';
import { RelayedLog } from './relayed-log.js';

/**
 * Live chunks of a run, collected from the moment of subscription, and the chunks this process's
 * worker logs for it (`relayed`). Subscribe before starting or deciding, so deltas of a model
 * step that begins right away, and what the decision's own workflow task logs, are not missed.
 * Chunks may come from another process: a withdrawal, or the first chunk of a later attempt of
 * the same step, drops what the earlier attempt sent, and late chunks of a replaced attempt are
 * ignored.
 */
export class LiveSubscription {
  private readonly chunks = new Map<number, Chunk>();
  private withdrawn = false;
  /** Per step (its first text offset): the attempt shown, and whether it was withdrawn. */
  private readonly attempts = new Map<number, { attempt: number; withdrawn: boolean }>();
  private readonly unsubscribe: () => void;
  onChunk: (() => void) | undefined;
  readonly relayed: RelayedLog;

  constructor(bus: LiveDeltaTransport, runId: string) {
    this.relayed = new RelayedLog(logRelay, runId);
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
    this.relayed.close();
    this.chunks.clear();
  }
}
