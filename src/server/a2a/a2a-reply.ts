/**
 * What an A2A message sent to an `input-required` task means for the run (docs/a2a.md): which
 * waiting call it answers, and how. Pure.
 */
import type { Message } from '@a2a-js/sdk';
import { contentOf } from '../../a2a/a2a-parts.js';
import { TollgateError } from '../../common/errors.js';
import type { JsonObject, JsonValue } from '../../common/json.js';
import type { PendingToolCall } from '../../common/run-types.js';

/** An answer to one waiting call. */
export type A2AReply =
  | { kind: 'approve' | 'decline'; call: PendingToolCall; reason?: string; fingerprint?: string }
  | { kind: 'resume'; call: PendingToolCall; resumeData: JsonValue };

const APPROVE = new Set(['approve', 'approved', 'yes', 'allow']);
const DECLINE = new Set(['decline', 'declined', 'no', 'deny', 'reject']);

/** The text of a message's text parts, joined by newlines. */
export function textOf(message: Message): string {
  return contentOf(message.parts).text;
}

function dataOf(message: Message): JsonObject | undefined {
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case !== 'data') continue;
    const value = content.value as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as JsonObject;
    }
    throw invalid('a data part must hold a JSON object');
  }
  return undefined;
}

/**
 * Reads a reply to a waiting task. A data part may name the call (`toolCallId`); without it the
 * task must wait on one call only. An approval takes `{ decision: 'approve' | 'decline', reason?,
 * fingerprint? }` or the text "approve" / "decline" (also yes/no); a suspended call takes the data
 * part's `resumeData` (else the whole data part), or `{ text }` for a message of text only.
 */
export function readReply(message: Message, pending: PendingToolCall[]): A2AReply {
  const data = dataOf(message);
  const text = textOf(message).trim();
  const call = pickCall(pending, data?.toolCallId);
  if (call.requiresApproval) {
    const word = (typeof data?.decision === 'string' ? data.decision : text).toLowerCase();
    const kind = APPROVE.has(word) ? 'approve' : DECLINE.has(word) ? 'decline' : undefined;
    if (!kind) {
      throw invalid(
        `the call of ${call.toolName} waits for an approval; reply "approve" or "decline" (or a data part { decision })`,
      );
    }
    const reason = typeof data?.reason === 'string' ? data.reason : undefined;
    const fingerprint = typeof data?.fingerprint === 'string' ? data.fingerprint : undefined;
    return { kind, call, ...(reason ? { reason } : {}), ...(fingerprint ? { fingerprint } : {}) };
  }
  if (data) {
    const { toolCallId: _named, ...rest } = data;
    return { kind: 'resume', call, resumeData: data.resumeData ?? rest };
  }
  if (text === '')
    throw invalid(`the call of ${call.toolName} waits for input; send text or a data part`);
  return { kind: 'resume', call, resumeData: { text } };
}

function pickCall(pending: PendingToolCall[], named: JsonValue | undefined): PendingToolCall {
  if (typeof named === 'string') {
    const call = pending.find((c) => c.toolCallId === named);
    if (call) return call;
    throw invalid(`no call ${JSON.stringify(named)} waits; waiting: ${idsOf(pending)}`);
  }
  if (pending.length === 1) return pending[0]!;
  throw invalid(`several calls wait (${idsOf(pending)}); name one with a data part { toolCallId }`);
}

function idsOf(pending: PendingToolCall[]): string {
  return pending.map((c) => c.toolCallId).join(', ');
}

function invalid(problem: string): TollgateError {
  return new TollgateError(
    'INVALID_A2A_MESSAGE',
    `This A2A message cannot answer the task: ${problem}.`,
  );
}
