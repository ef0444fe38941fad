import { amountProblem } from '../common/budget.js';
import type { TollgateErrorCode } from '../common/errors.js';
import type { JsonValue } from '../common/json.js';
import type { DecidedBy, DecisionInput, DecisionKind } from '../common/run-types.js';
import { isApprover } from '../common/agent-approver.js';
import { validateAgainstSchema } from './json-schema-check.js';
import type { WaitingCall } from './waiting-call.js';

/** What the rules read of a waiting call. */
export type GovernedCall = Pick<
  WaitingCall,
  | 'toolCallId'
  | 'toolName'
  | 'approvers'
  | 'alsoApprovers'
  | 'quorum'
  | 'approvals'
  | 'requester'
  | 'inputSchema'
  | 'budget'
>;

export interface Refusal {
  code: TollgateErrorCode;
  message: string;
}

/**
 * The approval rules of SPEC §10 for one approve or decline: who may decide, distinct approvers
 * for a quorum, no self-approval, and edited arguments that fit the tool's input schema.
 */
export function checkGovernance(
  call: GovernedCall,
  kind: DecisionKind,
  input: DecisionInput,
): Refusal | undefined {
  const { decidedBy, args } = input;
  const who = `tool call ${call.toolCallId} (${call.toolName})`;
  const badAmount = amountRefusal(call, kind, input.amount);
  if (badAmount) return badAmount;
  const needsIdentity =
    call.approvers !== undefined ||
    call.alsoApprovers !== undefined ||
    call.quorum !== undefined ||
    (kind === 'approve' && call.requester !== undefined);
  if (needsIdentity && !decidedBy) {
    return {
      code: 'APPROVER_REQUIRED',
      message: `A decision on ${who} must say who decides (decidedBy): it has approvers, a quorum or a requester rule.`,
    };
  }
  const notApprover = decidedBy && approverRefusal(call, decidedBy, 'decide');
  if (notApprover) return notApprover;
  if (kind !== 'approve') return undefined;
  if (call.requester !== undefined && decidedBy?.id === call.requester) {
    return {
      code: 'REQUESTER_CANNOT_APPROVE',
      message: `${decidedBy.id} requested this run and may not approve its own ${who}.`,
    };
  }
  if (
    call.quorum &&
    decidedBy &&
    call.approvals?.some((approval) => approval.id === decidedBy.id)
  ) {
    return {
      code: 'DUPLICATE_APPROVER',
      message: `${decidedBy.id} already approved ${who}; it needs ${call.quorum} distinct approvers.`,
    };
  }
  if (args !== undefined) return checkEdits(call, args);
  return undefined;
}

/**
 * The rules of a hand-off (docs/hand-off.md): only someone who may decide the call right now may
 * hand it off, and they must say who they are; under four-eyes the requester may not, since
 * handing off would let them choose who approves their own call.
 */
export function checkHandOff(
  call: GovernedCall,
  decidedBy: DecidedBy | undefined,
): Refusal | undefined {
  const who = `tool call ${call.toolCallId} (${call.toolName})`;
  if (!decidedBy) {
    return {
      code: 'APPROVER_REQUIRED',
      message: `A hand-off of ${who} must say who hands it off (decidedBy).`,
    };
  }
  const notApprover = approverRefusal(call, decidedBy, 'hand off');
  if (notApprover) return notApprover;
  if (call.requester !== undefined && decidedBy.id === call.requester) {
    return {
      code: 'REQUESTER_CANNOT_APPROVE',
      message: `${decidedBy.id} requested this run and may not hand off its own ${who}; another approver may.`,
    };
  }
  return undefined;
}

function approverRefusal(call: GovernedCall, by: DecidedBy, verb: string): Refusal | undefined {
  const who = `tool call ${call.toolCallId} (${call.toolName})`;
  if (call.approvers && !isApprover(call.approvers, by)) {
    return {
      code: 'NOT_AN_APPROVER',
      message: `${by.id} may not ${verb} ${who}: it is not one of the call's approvers.`,
    };
  }
  if (call.alsoApprovers && !isApprover(call.alsoApprovers, by)) {
    return {
      code: 'NOT_AN_APPROVER',
      message: `${by.id} may not ${verb} ${who}: it is not one of the approvers its request added.`,
    };
  }
  return undefined;
}

/**
 * A budget approval is approved with the amount that raises the run's limit; nothing else takes
 * one. Judged first, so a refusal names the amount before who decides.
 */
function amountRefusal(
  call: GovernedCall,
  kind: DecisionKind,
  amount: unknown,
): Refusal | undefined {
  if (call.budget === undefined || kind !== 'approve') {
    if (amount === undefined) return undefined;
    return {
      code: 'INVALID_BUDGET_AMOUNT',
      message: `An amount only goes with approving a budget approval; ${call.toolCallId} (${call.toolName}) is ${kind === 'approve' ? 'a tool call' : 'being declined'}: leave amount out.`,
    };
  }
  // The agent's `raiseBy` is what approving without an amount gives (chat, batch, links).
  if (amount === undefined && call.budget.raiseBy !== undefined) return undefined;
  const problem = amountProblem(amount);
  if (!problem) return undefined;
  return {
    code: 'INVALID_BUDGET_AMOUNT',
    message: `Approving budget approval ${call.toolCallId} (${call.budget.metric}: ${call.budget.used} of ${call.budget.limit}): ${problem}`,
  };
}

function checkEdits(call: GovernedCall, args: JsonValue): Refusal | undefined {
  if (call.quorum) {
    return {
      code: 'INVALID_DECISION',
      message: `Tool call ${call.toolCallId} needs a quorum; its arguments cannot be edited by one approver.`,
    };
  }
  if (!call.inputSchema) {
    return {
      code: 'INVALID_DECISION',
      message: `Tool call ${call.toolCallId} (${call.toolName}) cannot take edited arguments.`,
    };
  }
  const problem = validateAgainstSchema(call.inputSchema, args, 'args');
  return problem
    ? {
        code: 'INVALID_DECISION',
        message: `Edited arguments for ${call.toolName} are invalid: ${problem}.`,
      }
    : undefined;
}

export { isApprover };
