import { makeChunk, type Chunk } from '../common/chunks.js';

/**
 * What a tail (or an SSE response) delivers, before it becomes a stream's visible chunks:
 * - `offset` set: the chunk the run's log holds at that offset (the truth);
 * - `live` set: a text delta (or a `text-withdrawn` marker) seen in this process while a model
 *   step streams, meant for log offset `live`; it claims no offset;
 * - neither: the run's outcome that its log does not hold (an `error` chunk for a run
 *   terminated, timed out or cancelled from outside).
 */
export interface StreamItem {
  chunk: Chunk;
  offset?: number;
  live?: number;
}

/**
 * Turns stream items into the chunks a reader sees. Live text shows at once; when the log's
 * chunk for the same offset arrives with the same text it is not shown twice; when the log
 * says something else (or the step's attempt failed) the live text not yet confirmed is taken
 * back with one `text-withdrawn` chunk before the log's chunks follow.
 */
export class LiveTextMerge {
  private provisional: Array<{ at: number; text: string }> = [];

  constructor(private readonly runId: string) {}

  push(item: StreamItem): Chunk[] {
    const { chunk } = item;
    if (item.live !== undefined) {
      if (chunk.type === 'text-withdrawn') return this.withdraw();
      if (chunk.type !== 'text-delta') return [];
      this.provisional.push({ at: item.live, text: chunk.payload.text });
      return [chunk];
    }
    const first = this.provisional[0];
    if (
      first &&
      item.offset === first.at &&
      chunk.type === 'text-delta' &&
      chunk.payload.text === first.text
    ) {
      this.provisional.shift();
      return [];
    }
    return [...this.withdraw(), chunk];
  }

  private withdraw(): Chunk[] {
    if (this.provisional.length === 0) return [];
    const text = this.provisional.map((entry) => entry.text).join('');
    this.provisional = [];
    return [makeChunk(this.runId, 'text-withdrawn', { text })];
  }
}
