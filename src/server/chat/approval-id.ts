import { TollgateError } from '../../common/errors.js';

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

/** Splits an approval id; anything not made by `approvalIdOf` is `INVALID_APPROVAL_ID`. */
export function parseApprovalId(approvalId: unknown): ApprovalTarget {
  const parts = typeof approvalId === 'string' ? approvalId.split('.') : [];
  const [run, call, fingerprint] = parts;
  if (
    parts.length !== 3 ||
    !BASE64URL.test(run!) ||
    !BASE64URL.test(call!) ||
    !FINGERPRINT.test(fingerprint!)
  ) {
    throw notIssued(approvalId);
  }
  return { runId: decode(run!), toolCallId: decode(call!), fingerprint: fingerprint! };
}

/** The answer names a run that is not one of the caller's chat. */
export function notIssued(approvalId: unknown): TollgateError {
  return new TollgateError(
    'INVALID_APPROVAL_ID',
    `The approval id ${JSON.stringify(approvalId)} was not issued by this chat; answer the tool-approval-request part the chat received.`,
  );
}

const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const decode = (text: string) => Buffer.from(text, 'base64url').toString('utf8');
