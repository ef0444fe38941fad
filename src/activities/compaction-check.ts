import { modelMessageSchema } from 'ai';
import { jsonBytes } from '../common/continued-run.js';
import { TollgateError } from '../common/errors.js';
import { toJsonValue, type JsonValue } from '../common/json.js';
import type { CompactedConversation } from '../common/compaction-types.js';

/** The conversation a hook was given, as the checks compare its result with it. */
export interface CompactionBefore {
  agentId: string;
  messages: JsonValue[];
  bytes: number;
  recalled: number;
  maxBytes: number;
}

/**
 * Checks a compaction hook's result and measures it for the audit. Throws `INVALID_COMPACTION`,
 * naming the problem, when it is not a non-empty array of model messages, is not smaller than the
 * conversation it replaces or than `maxBytes`, or separates a tool call from its result.
 */
export function checkCompaction(before: CompactionBefore, result: unknown): CompactedConversation {
  const invalid = (problem: string) =>
    new TollgateError(
      'INVALID_COMPACTION',
      `Agent "${before.agentId}": conversation.compact ${problem}; the run keeps its conversation unchanged and fails.`,
    );
  if (!Array.isArray(result) || result.length === 0) {
    throw invalid('must return a non-empty array of model messages');
  }
  result.forEach((message, index) => {
    const parsed = modelMessageSchema.safeParse(message);
    if (!parsed.success) {
      throw invalid(
        `returned an invalid model message at index ${index} (${parsed.error.issues[0]?.message ?? 'unknown shape'})`,
      );
    }
  });
  const messages = toJsonValue(result) as JsonValue[];
  checkToolPairs(messages, invalid);
  const bytesAfter = jsonBytes(messages);
  if (bytesAfter >= before.bytes) {
    throw invalid(`returned ${bytesAfter} bytes, not fewer than the ${before.bytes} it was given`);
  }
  if (bytesAfter > before.maxBytes) {
    throw invalid(`returned ${bytesAfter} bytes, over history.carryMaxBytes (${before.maxBytes})`);
  }
  const old = before.messages.map((message) => JSON.stringify(message));
  const kept = new Set(messages.map((message) => JSON.stringify(message)));
  let recalled = 0;
  while (
    recalled < Math.min(before.recalled, messages.length) &&
    JSON.stringify(messages[recalled]) === old[recalled]
  ) {
    recalled++;
  }
  return {
    messages,
    bytesBefore: before.bytes,
    bytesAfter,
    messagesBefore: before.messages.length,
    messagesDropped: old.filter((message) => !kept.has(message)).length,
    recalled,
  };
}

interface ToolPart {
  type: string;
  toolCallId: string;
}

function toolParts(message: JsonValue, type: 'tool-call' | 'tool-result'): ToolPart[] {
  const content = (message as { content?: unknown }).content;
  if (!Array.isArray(content)) return [];
  return (content as ToolPart[]).filter((part) => part?.type === type);
}

/** Every tool result follows its call, and every call is followed by its result. */
function checkToolPairs(messages: JsonValue[], invalid: (problem: string) => Error): void {
  const called = new Set<string>();
  const answered = new Set<string>();
  messages.forEach((message, index) => {
    for (const part of toolParts(message, 'tool-call')) called.add(part.toolCallId);
    for (const part of toolParts(message, 'tool-result')) {
      if (!called.has(part.toolCallId)) {
        throw invalid(
          `returned a tool result (${part.toolCallId}, message ${index}) without the call before it; keep a call and its result together`,
        );
      }
      answered.add(part.toolCallId);
    }
  });
  const unanswered = [...called].find((id) => !answered.has(id));
  if (unanswered !== undefined) {
    throw invalid(
      `returned a tool call (${unanswered}) without its result; keep a call and its result together`,
    );
  }
}
