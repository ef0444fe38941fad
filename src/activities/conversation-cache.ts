import type { JsonValue } from '../common/json.js';

/**
 * Each worker keeps the conversations of the runs it recently stepped, so a model step receives
 * only the new messages. On a miss (another worker, a restart) the prefix is read back from the
 * run itself; Temporal stays the only store.
 */
export class ConversationCache {
  private readonly runs = new Map<string, JsonValue[]>();

  constructor(private readonly capacity = 1000) {}

  /** The first `length` messages of a run, if this worker holds exactly those. */
  get(runId: string, length: number): JsonValue[] | undefined {
    const messages = this.runs.get(runId);
    if (!messages || messages.length !== length) return undefined;
    // Refresh recency: Map iteration order is insertion order.
    this.runs.delete(runId);
    this.runs.set(runId, messages);
    return messages;
  }

  set(runId: string, messages: JsonValue[]): void {
    this.runs.delete(runId);
    this.runs.set(runId, messages);
    if (this.runs.size > this.capacity) {
      const oldest = this.runs.keys().next().value;
      if (oldest !== undefined) this.runs.delete(oldest);
    }
  }
}
