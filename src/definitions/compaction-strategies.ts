import { generateText, type LanguageModel, type ModelMessage } from 'ai';
import { resolveModel } from '../activities/resolve-model.js';
import { jsonBytes } from '../common/continued-run.js';
import { TollgateError } from '../common/errors.js';
import type { CompactionInfo, ConversationCompactor } from './conversation-options.js';

/** A conversation cut in three: what always stays, what goes, the recent part that stays. */
export interface ConversationSplit {
  /** The recalled thread messages and the run's first messages, through its first user message. */
  head: ModelMessage[];
  older: ModelMessage[];
  /** The last messages, at most `keep` and at most half the conversation's bytes. */
  recent: ModelMessage[];
}

/**
 * Splits a conversation for a compaction. The recent part never starts with a tool result (its
 * call would be gone), and keeps at most half of `info.bytes`, so the result is smaller even when
 * a few messages are most of the conversation.
 */
export function splitConversation(
  messages: ModelMessage[],
  info: Pick<CompactionInfo, 'bytes' | 'recalled'>,
  keep: number,
): ConversationSplit {
  let headEnd = Math.min(info.recalled, messages.length);
  while (headEnd < messages.length && messages[headEnd]!.role !== 'user') headEnd++;
  headEnd = Math.min(headEnd + 1, messages.length);
  let start = Math.max(headEnd, messages.length - keep);
  let recentBytes = jsonBytes(messages.slice(start));
  while (start < messages.length && recentBytes > info.bytes / 2) {
    recentBytes -= jsonBytes(messages[start]!) + 1;
    start++;
  }
  while (start < messages.length && messages[start]!.role === 'tool') start++;
  return {
    head: messages.slice(0, headEnd),
    older: messages.slice(headEnd, start),
    recent: messages.slice(start),
  };
}

function checkKeep(keep: number, name: string): void {
  if (!Number.isInteger(keep) || keep < 0) {
    throw new TollgateError(
      'INVALID_AGENT',
      `${name}: keep must be a whole number of messages of at least 0, not ${String(keep)}.`,
    );
  }
}

/**
 * Keeps the start of the run (recalled thread messages and the run's first user message) and
 * its last `keep` messages; drops the rest. The model loses what it did in between.
 */
export function keepRecentMessages(keep: number): ConversationCompactor {
  checkKeep(keep, 'keepRecentMessages');
  return (messages, info) => {
    const { head, recent } = splitConversation(messages, info, keep);
    return [...head, ...recent];
  };
}

/** Options of `summarizeOlderMessages`. */
export interface SummarizeOptions {
  /** The model that writes the summary; any AI SDK model, or `'openai/<model>'`. */
  model: LanguageModel;
  /** Recent messages kept as they are. Default 20. */
  keep?: number;
  /** Instructions for the summary. Default: keep facts, decisions, results and open tasks. */
  instructions?: string;
}

const SUMMARY_INSTRUCTIONS =
  'Summarize this part of an agent conversation for the agent that will continue it. Keep every ' +
  'fact, decision, tool result and open task it still needs; drop chatter. Answer with the summary only.';

/** Prefix of the message that stands in for the summarized messages. */
export const SUMMARY_PREFIX =
  'Summary of the earlier conversation (older messages were removed):\n';

/**
 * Keeps the start of the run and its last `keep` messages, and replaces the messages between
 * them with one user message holding a summary that `model` writes of them.
 */
export function summarizeOlderMessages(options: SummarizeOptions): ConversationCompactor {
  const keep = options.keep ?? 20;
  checkKeep(keep, 'summarizeOlderMessages');
  if (!options?.model) {
    throw new TollgateError('INVALID_AGENT', 'summarizeOlderMessages: model is required.');
  }
  return async (messages, info) => {
    const { head, older, recent } = splitConversation(messages, info, keep);
    if (older.length === 0) return [...head, ...recent];
    const { text } = await generateText({
      model: await resolveModel(options.model),
      system: options.instructions ?? SUMMARY_INSTRUCTIONS,
      prompt: JSON.stringify(older),
      maxRetries: 0,
    });
    return [...head, { role: 'user', content: SUMMARY_PREFIX + text }, ...recent];
  };
}
