import type { Interrupt, ResumeEntry } from '@ag-ui/core';
import { TollgateError } from '../../common/errors.js';
import type { JsonValue } from '../../common/json.js';
import type { PendingToolCall } from '../../common/run-types.js';
import { approvalIdOf, parseApprovalId, shown } from '../chat/approval-id.js';
import type { ChatAnswer } from '../chat/chat-answers.js';

/** `Interrupt.reason` of a gated call: answer `{ approved, reason?, editedArgs? }`. */
export const APPROVAL_REASON = 'tool_approval';
/** `Interrupt.reason` of a call parked by `suspend()`: answer with its resume data. */
export const SUSPENSION_REASON = 'input_required';

/** What `Interrupt.metadata.tollgate` holds: the waiting call as the run recorded it. */
export interface InterruptDetails {
  /** The durable run the call waits in. */
  runId: string;
  toolCallId: string;
  toolName: string;
  args: JsonValue;
  fingerprint: string;
  /** `suspend()`'s payload, for a suspension. */
  suspendPayload?: JsonValue;
  /** Who may decide, when restricted: ids or `role:<name>`. */
  approvers?: string[];
  /** For a call inside a sub-agent: agent ids from the run's agent down to the call's. */
  path?: string[];
}

/** The answer an approval interrupt expects, as JSON Schema (`Interrupt.responseSchema`). */
export const APPROVAL_RESPONSE_SCHEMA = {
  type: 'object',
  properties: {
    approved: { type: 'boolean' },
    reason: { type: 'string', description: 'Why; a decline tells the model this.' },
    editedArgs: { type: 'object', description: 'Approve with these arguments instead.' },
  },
  required: ['approved'],
} as const;

/**
 * A waiting call as an AG-UI interrupt. Its id is the chat bridge's approval id
 * (`<runId>.<toolCallId>.<fingerprint>`), so an answer reaches exactly the call the user saw,
 * with the arguments they saw, in a run of the caller's own thread.
 */
export function interruptOf(runId: string, call: PendingToolCall): Interrupt {
  const { toolCallId, toolName, args, fingerprint } = call;
  const details: InterruptDetails = {
    runId,
    toolCallId,
    toolName,
    args,
    fingerprint,
    ...(call.suspendPayload !== undefined ? { suspendPayload: call.suspendPayload } : {}),
    ...(call.approvers ? { approvers: call.approvers } : {}),
    ...(call.path ? { path: call.path } : {}),
  };
  return {
    id: approvalIdOf({ runId, toolCallId, fingerprint }),
    reason: call.requiresApproval ? APPROVAL_REASON : SUSPENSION_REASON,
    message: call.requiresApproval
      ? `Approve ${toolName} with ${JSON.stringify(args)}?`
      : `${toolName} needs more input to continue.`,
    toolCallId,
    responseSchema: call.requiresApproval
      ? { ...APPROVAL_RESPONSE_SCHEMA }
      : (JSON.parse(call.resumeSchema) as Record<string, unknown>),
    ...(call.expiresAt !== undefined ? { expiresAt: call.expiresAt } : {}),
    metadata: { tollgate: details },
  };
}

/**
 * A resume entry as the decision it asks for. `lookup` answers the call its interrupt names (or
 * undefined when it no longer waits), so the payload is read as the call expects: an approval
 * takes `{ approved, reason?, editedArgs? }` (`cancelled`: a decline), a suspension takes its
 * resume data (the run checks it against the tool's `resumeSchema`) and cannot be cancelled.
 */
export async function answerOf(
  entry: ResumeEntry,
  lookup: (runId: string, toolCallId: string) => Promise<PendingToolCall | undefined>,
): Promise<ChatAnswer> {
  const target = targetOf(entry.interruptId);
  const call = await lookup(target.runId, target.toolCallId);
  if (!call) {
    throw new TollgateError(
      'TOOL_CALL_NOT_PENDING',
      `The interrupt ${shown(entry.interruptId)} was already answered or no longer waits; run the thread again without resume to see what it waits for now.`,
    );
  }
  if (!call.requiresApproval) {
    if (entry.status === 'cancelled') {
      throw new TollgateError(
        'INVALID_DECISION',
        `The interrupt ${shown(entry.interruptId)} is a call parked by suspend(), which only resume data answers; resolve it with a payload matching its responseSchema.`,
      );
    }
    return { kind: 'resume', ...target, resumeData: (entry.payload ?? null) as JsonValue };
  }
  const approvalId = entry.interruptId;
  if (entry.status === 'cancelled') {
    return { kind: 'decline', approvalId, ...target, reason: 'The user cancelled the approval.' };
  }
  const { approved, reason, editedArgs } = approvalPayload(entry);
  return {
    kind: approved ? 'approve' : 'decline',
    approvalId,
    ...target,
    ...(reason !== undefined ? { reason } : {}),
    ...(approved && editedArgs !== undefined ? { args: editedArgs } : {}),
  };
}

function targetOf(interruptId: string): { runId: string; toolCallId: string; fingerprint: string } {
  try {
    return parseApprovalId(interruptId);
  } catch {
    throw notIssuedHere(interruptId);
  }
}

/** The interrupt id was not made here, or names a run of another thread, agent or caller. */
export function notIssuedHere(interruptId: string): TollgateError {
  return new TollgateError(
    'INVALID_APPROVAL_ID',
    `The interrupt id ${shown(interruptId)} was not issued on this thread; answer an interrupt of the thread's last RUN_FINISHED.`,
  );
}

function approvalPayload(entry: ResumeEntry): {
  approved: boolean;
  reason?: string;
  editedArgs?: JsonValue;
} {
  const payload = entry.payload as
    { approved?: unknown; reason?: unknown; editedArgs?: unknown } | undefined;
  const { approved, reason, editedArgs } = payload ?? {};
  if (
    typeof approved !== 'boolean' ||
    (reason !== undefined && typeof reason !== 'string') ||
    (editedArgs !== undefined && (typeof editedArgs !== 'object' || editedArgs === null))
  ) {
    throw new TollgateError(
      'INVALID_DECISION',
      `The answer to approval interrupt ${shown(entry.interruptId)} is ${shown(entry.payload)}; send { "approved": true | false, "reason"?: string, "editedArgs"?: object }.`,
    );
  }
  return {
    approved,
    ...(typeof reason === 'string' && reason !== '' ? { reason } : {}),
    ...(editedArgs !== undefined ? { editedArgs: editedArgs as JsonValue } : {}),
  };
}
