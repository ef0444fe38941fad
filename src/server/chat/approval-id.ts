import { TollgateError } from '../../common/errors.js';
import { idProblem, MAX_ID_LENGTH } from '../../common/limits.js';

/**
 * The `approvalId` of a chat's `tool-approval-request` part: the run, Tollgate's tool call id and
 * the call's fingerprint, `<runId>.<toolCallId>.<fingerprint>` (ids base64url-encoded). An answer
 * is applied only to the call that waits under that id with that fingerprint, in a run of the
 * caller's own chat, so it approves exactly the call the user saw.
 */
export function approvalIdOf(call: {
  runId: string;
  toolCallId: string;
  fingerprint: string;
}): string {
  return [encode(call.runId), encode(call.toolCallId), call.fingerprint].join('.');
}

export interface ApprovalTarget {
  runId: string;
  toolCallId: string;
  fingerprint: string;
}

const FINGERPRINT = /^[0-9a-f]{64}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/**
 * Two ids of `MAX_ID_LENGTH` UTF-16 units (at most 3 UTF-8 bytes each, 4 base64url characters
 * per 3 bytes), two dots and a fingerprint: longer is not an approval id, and is not decoded.
 */
const MAX_APPROVAL_ID_LENGTH = 2 * MAX_ID_LENGTH * 4 + 2 + 64;

/**
 * Splits an approval id; anything not made by `approvalIdOf`, or naming a run or call id no
 * Tollgate run can have, is `INVALID_APPROVAL_ID` before any run is asked about it.
 */
export function parseApprovalId(approvalId: unknown): ApprovalTarget {
  const parts =
    typeof approvalId === 'string' && approvalId.length <= MAX_APPROVAL_ID_LENGTH
      ? approvalId.split('.')
      : [];
  const [run, call, fingerprint] = parts;
  if (
    parts.length !== 3 ||
    !BASE64URL.test(run!) ||
    !BASE64URL.test(call!) ||
    !FINGERPRINT.test(fingerprint!)
  ) {
    throw notIssued(approvalId);
  }
  const target = { runId: decode(run!), toolCallId: decode(call!), fingerprint: fingerprint! };
  if (idProblem(target.runId, 'runId') || idProblem(target.toolCallId, 'toolCallId')) {
    throw notIssued(approvalId);
  }
  return target;
}

/** The answer names a run that is not one of the caller's chat. */
export function notIssued(approvalId: unknown): TollgateError {
  return new TollgateError(
    'INVALID_APPROVAL_ID',
    `The approval id ${shown(approvalId)} was not issued by this chat; answer the tool-approval-request part the chat received.`,
  );
}

/** A value as an error message quotes it: JSON, cut short, whatever the caller sent. */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? typeof value;
  } catch {
    text = typeof value;
  }
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const decode = (text: string) => Buffer.from(text, 'base64url').toString('utf8');
