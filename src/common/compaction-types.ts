import type { JsonValue } from './json.js';

/**
 * Default `conversation.compactAboveBytes`: about a quarter of `history.carryMaxBytes` (1.9 MB).
 * A run compacts at a step boundary once its conversation passes this, so what it carries when it
 * next continues as new is this much plus at most one step's growth. The rest is for its audit,
 * which is carried whole and grows by ≈ 130 bytes a tool call (≈ 10,000 calls fit). 500 KB of JSON
 * (≈ 125k tokens) is about the largest context window models commonly have.
 */
export const DEFAULT_COMPACT_ABOVE_BYTES = 500_000;

/** Present in the manifest of an agent with `conversation.compact`. */
export interface CompactionManifest {
  /** The run compacts its conversation at a step boundary when it passes this many bytes. */
  compactAboveBytes: number;
}

/** The `compactConversation` activity's input. */
export interface CompactConversationInput {
  runId: string;
  agentId: string;
  /** Model steps taken so far. */
  step: number;
  /** The conversation from message `from` on; the worker keeps (or queries) the earlier part. */
  conversation: ConversationRef;
  /** Leading messages recalled from the memory thread. */
  recalled: number;
  /** The result must fit in what a continue-as-new carries (`history.carryMaxBytes`). */
  maxBytes: number;
}

/**
 * The conversation a worker step needs: message `from` on, the rest from the worker's cache or
 * the run. `generation` counts the run's compactions: a cached prefix of an earlier generation is
 * not a prefix of this one.
 */
export interface ConversationRef {
  from: number;
  messages: JsonValue[];
  /** Absent: 0, no compaction yet. */
  generation?: number;
}

/** The checked result of a compaction, with what the audit records about it. */
export interface CompactedConversation {
  messages: JsonValue[];
  bytesBefore: number;
  bytesAfter: number;
  messagesBefore: number;
  /** Messages of the old conversation that are not in the new one unchanged. */
  messagesDropped: number;
  /** Leading messages of the new conversation recalled from the memory thread (kept unchanged). */
  recalled: number;
}
