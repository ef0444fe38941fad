import { EMPTY_OBJECT_SCHEMA, refOf, type ChunkOf } from '../common/chunks.js';
import type { BudgetAsk } from '../common/budget.js';
import type { DecisionGrant } from '../common/decision-types.js';
import type { JsonValue } from '../common/json.js';
import type {
  DecidedBy,
  DecisionKind,
  ModelToolCall,
  PendingToolCall,
} from '../common/run-types.js';

/** A call waiting for a decision, with what the workflow needs to match it. */
export interface WaitingCall extends PendingToolCall {
  kind: 'approve' | 'resume';
  /** Request order, to find "the most recently requested" call. */
  sequence: number;
  /** Set when the call waits inside a sub-agent: decisions are passed down to that child run. */
  route?: { child: string; innerId: string };
  /** `requestContext.requester`, when the call's approver must be someone else. */
  requester?: string;
  /** JSON Schema of the tool's input, for approvals with edited arguments. */
  inputSchema?: string;
}

/** Governance of one approval wait, fixed when the call starts to wait. */
export interface WaitTerms {
  expiresAt?: number;
  approvers?: string[];
  alsoApprovers?: string[];
  quorum?: number;
  requester?: string;
  inputSchema?: string;
}

export interface Decision {
  kind: DecisionKind;
  reason?: string;
  decidedBy?: DecidedBy;
  resumeData?: JsonValue;
  /** Approved with these edited arguments. */
  args?: JsonValue;
  /** A budget approval's raise of the run's limit. */
  amount?: number;
  /** Approved by this standing grant (`DecisionInput.grant`). */
  grant?: DecisionGrant;
  /** The approval also covers the tool's later calls in this run (`DecisionInput.runGrant`). */
  runGrant?: true;
}

export interface WaitDetails {
  resumeSchema?: string;
  suspendPayload?: JsonValue;
  terms?: WaitTerms;
  /** Why the gate stopped the call, when its policy said. */
  gateNote?: string;
  /** The tool definition the gate saw, which the approval binds to. */
  definition?: string;
  /** Set on a budget approval: what it asks for. */
  budget?: BudgetAsk;
}

export function waitingCall(
  call: ModelToolCall,
  kind: WaitingCall['kind'],
  details: WaitDetails,
  sequence: number,
): WaitingCall {
  const { suspendPayload, terms = {}, gateNote, definition, budget } = details;
  return {
    ...refOf(call),
    fingerprint: call.fingerprint,
    requiresApproval: kind === 'approve',
    requestedAt: new Date(Date.now()).toISOString(),
    kind,
    sequence,
    resumeSchema: details.resumeSchema ?? EMPTY_OBJECT_SCHEMA,
    ...(suspendPayload !== undefined ? { suspendPayload } : {}),
    ...(terms.expiresAt !== undefined
      ? { expiresAt: new Date(terms.expiresAt).toISOString() }
      : {}),
    ...(terms.approvers ? { approvers: terms.approvers } : {}),
    ...(terms.alsoApprovers ? { alsoApprovers: terms.alsoApprovers } : {}),
    ...(terms.quorum !== undefined && terms.quorum > 1
      ? { quorum: terms.quorum, approvals: [] }
      : {}),
    ...(terms.requester !== undefined ? { requester: terms.requester } : {}),
    ...(terms.inputSchema !== undefined ? { inputSchema: terms.inputSchema } : {}),
    ...(gateNote !== undefined ? { gateNote } : {}),
    ...(definition !== undefined ? { definition } : {}),
    ...(budget !== undefined ? { budget } : {}),
  };
}

/** The stream's view of a waiting call: an approval request or a suspension (SPEC §4). */
export function requestChunk(
  waiting: WaitingCall,
):
  | Pick<ChunkOf<'tool-call-approval'>, 'type' | 'payload'>
  | Pick<ChunkOf<'tool-call-suspended'>, 'type' | 'payload'> {
  const { resumeSchema, path, expiresAt, quorum, approvals, gateNote, reassigned, budget } =
    waiting;
  const where = path ? { path } : {};
  if (waiting.kind === 'resume') {
    const payload = {
      ...refOf(waiting),
      suspendPayload: waiting.suspendPayload ?? null,
      resumeSchema,
      ...where,
    };
    return { type: 'tool-call-suspended', payload };
  }
  const payload = {
    ...refOf(waiting),
    fingerprint: waiting.fingerprint,
    resumeSchema,
    ...(expiresAt ? { expiresAt } : {}),
    ...(quorum ? { quorum, approvals: approvals ?? [] } : {}),
    ...where,
    ...(gateNote !== undefined ? { gateNote } : {}),
    // Only once someone else decides, so a chunk of a call never reassigned is as it was.
    ...(reassigned ? { approvers: waiting.approvers ?? [], reassigned } : {}),
    ...(budget !== undefined ? { budget } : {}),
  };
  return { type: 'tool-call-approval', payload };
}

/** What others may see of a waiting call (the `pendingToolCalls` query). */
export function publicView(waiting: WaitingCall): PendingToolCall {
  const {
    kind: _kind,
    sequence: _sequence,
    route: _route,
    requester: _requester,
    inputSchema: _schema,
    ...pending
  } = waiting;
  return pending;
}
