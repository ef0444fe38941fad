import {
  allHandlersFinished,
  condition,
  continueAsNew,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { JsonValue } from '../common/json.js';
import type { ThreadInput } from '../common/run-types.js';
import { DEFAULT_THREAD_MAX_BYTES, retainedMessages } from '../common/thread-retention.js';
import {
  threadAppendSignal as appendSignal,
  threadMessagesQuery as messagesQuery,
} from '../common/messages.js';

/** How many applied run ids a thread remembers across continue-as-new. */
const REMEMBERED_RUNS = 200;

/**
 * A conversation kept across runs, with Temporal as its only store (memory). Runs read its last
 * messages when they start and append theirs when they complete. Before its history grows too
 * long, it continues as new, carrying the conversation. It keeps the newest messages within
 * `maxMessages` and `maxBytes`, so what it carries, and every query answer, stays below
 * Temporal's payload limits however long the conversation gets.
 */
export async function agentThread(input: ThreadInput): Promise<void> {
  const rule = {
    maxMessages: input.maxMessages,
    maxBytes: input.maxBytes ?? DEFAULT_THREAD_MAX_BYTES,
  };
  // Retention changes no command, so applying the byte budget to older threads replays as before.
  let messages = retainedMessages([...input.messages], rule);
  const applied = new Set(input.appliedRuns);
  setHandler(appendSignal, ({ runId, messages: added }) => {
    if (applied.has(runId)) return;
    applied.add(runId);
    messages = retainedMessages([...messages, ...added], rule);
  });
  setHandler(messagesQuery, ({ last }) => lastMessages(messages, last));
  await condition(
    () =>
      workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= input.historyLimit,
  );
  await condition(allHandlersFinished);
  await continueAsNew<typeof agentThread>({
    ...input,
    messages,
    maxBytes: rule.maxBytes,
    appliedRuns: [...applied].slice(-REMEMBERED_RUNS),
  });
}

/**
 * The last `count` messages, starting at a user message so a tool result never comes without
 * the call it answers.
 */
export function lastMessages(messages: JsonValue[], count: number): JsonValue[] {
  let start = Math.max(0, messages.length - count);
  while (start < messages.length && (messages[start] as { role?: string }).role !== 'user') start++;
  return messages.slice(start);
}
