import type { ConversationRef } from '../common/compaction-types.js';
import type { JsonValue } from '../common/json.js';

/**
 * Each worker keeps the conversations of the runs it recently stepped, so a model step receives
 * only the new messages. On a miss (another worker, a restart) the prefix is read back from the
 * run itself; Temporal stays the only store. A run's conversation only grows, except when it is
 * compacted: entries are kept per generation (compactions so far), so a prefix cached before a
 * compaction is never taken for one of the compacted conversation.
 */
export class ConversationCache {
  private readonly runs = new Map<string, { generation: number; messages: JsonValue[] }>();

  constructor(private readonly capacity = 1000) {}

  /** The first `length` messages of a run's generation, if this worker holds exactly those. */
  get(runId: string, length: number, generation = 0): JsonValue[] | undefined {
    const entry = this.runs.get(runId);
    if (!entry || entry.generation !== generation || entry.messages.length !== length) {
      return undefined;
    }
    // Refresh recency: Map iteration order is insertion order.
    this.runs.delete(runId);
    this.runs.set(runId, entry);
    return entry.messages;
  }

  set(runId: string, messages: JsonValue[], generation = 0): void {
    this.runs.delete(runId);
    this.runs.set(runId, { generation, messages });
    if (this.runs.size > this.capacity) {
      const oldest = this.runs.keys().next().value;
      if (oldest !== undefined) this.runs.delete(oldest);
    }
  }
}

/** Where a worker step finds a run's conversation: its cache, else the run's own query. */
export interface ConversationSource {
  conversations: ConversationCache;
  /** Reads the first `upTo` messages back from the run, when this worker does not hold them. */
  readConversation(runId: string, upTo: number): Promise<JsonValue[]>;
}

/** The whole conversation a step refers to: the cached (or queried) prefix and the new part. */
export async function wholeConversation(
  source: ConversationSource,
  runId: string,
  ref: ConversationRef,
): Promise<JsonValue[]> {
  const { from, messages, generation } = ref;
  const prefix =
    from === 0
      ? []
      : (source.conversations.get(runId, from, generation) ??
        (await source.readConversation(runId, from)));
  return [...prefix, ...messages];
}
