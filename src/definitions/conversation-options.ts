import type { ModelMessage } from 'ai';
import { DEFAULT_COMPACT_ABOVE_BYTES } from '../common/compaction-types.js';
import { DEFAULT_HISTORY_LIMITS, type HistoryLimits } from '../common/continued-run.js';
import { TollgateError } from '../common/errors.js';

/** What a compaction hook learns about the run besides its conversation. */
export interface CompactionInfo {
  runId: string;
  agentId: string;
  /** Model steps taken so far; the next model step gets the hook's result. */
  step: number;
  /** The conversation's size as JSON (UTF-8), bytes. */
  bytes: number;
  /**
   * Leading messages recalled from the run's memory thread (runs with `memory`). Those the hook
   * keeps unchanged at the start are not appended to the thread again.
   */
  recalled: number;
  /** The result must be smaller than this (`history.carryMaxBytes`), bytes. */
  maxBytes: number;
}

/**
 * Returns a shorter conversation to go on with. Runs on the worker, as an activity: it may call
 * a model. Its result must be valid model messages, smaller than its input, and must not hold a
 * tool result without its call (or a call without its result).
 */
export type ConversationCompactor = (
  messages: ModelMessage[],
  info: CompactionInfo,
) => ModelMessage[] | Promise<ModelMessage[]>;

/** How a run keeps its conversation bounded (see docs/long-runs.md "Compaction"). */
export interface ConversationOptions {
  /**
   * At a step boundary, a run whose conversation (as JSON) is larger than this compacts it with
   * `compact`, bytes. Default 500,000 (about a quarter of `history.carryMaxBytes`); set it to what
   * your model's context window holds. Must be below `history.carryMaxBytes`.
   */
  compactAboveBytes?: number;
  /**
   * The compaction: `keepRecentMessages(n)`, `summarizeOlderMessages({ model, keep })` or your
   * own function. Its result replaces the run's conversation; the model sees only that from the
   * next step on.
   */
  compact: ConversationCompactor;
}

/** The agent's `conversation` option, checked: a function and a threshold below the carry limit. */
export function checkConversationOptions(
  agentId: string,
  options: ConversationOptions | undefined,
  history: Partial<HistoryLimits>,
): ConversationOptions | undefined {
  if (options === undefined) return undefined;
  if (typeof options?.compact !== 'function') {
    throw new TollgateError(
      'INVALID_AGENT',
      `Agent "${agentId}": conversation.compact must be a function, such as keepRecentMessages(50).`,
    );
  }
  const above = options.compactAboveBytes ?? DEFAULT_COMPACT_ABOVE_BYTES;
  const carry = history.carryMaxBytes ?? DEFAULT_HISTORY_LIMITS.carryMaxBytes;
  if (!Number.isInteger(above) || above < 1 || above >= carry) {
    throw new TollgateError(
      'INVALID_AGENT',
      `Agent "${agentId}": conversation.compactAboveBytes must be a whole number of bytes of at least 1 and below history.carryMaxBytes (${carry}), not ${String(above)}.`,
    );
  }
  return { ...options, compactAboveBytes: above };
}
