import type { DecidedBy } from '../common/decision-types.js';
import type { Grant } from '../common/grant-types.js';
import type { Decision, WaitingCall } from './waiting-call.js';

/**
 * A grant for this run only (docs/grants.md "For this run"): given with an approval
 * (`DecisionInput.runGrant`), kept in the run's memory, rebuilt by replay from the decision's
 * update; nothing outside the run holds it.
 */
export interface RunGrant {
  /** `run:<toolCallId>`: the approved call that gave it, in the `grant-used` entries it causes. */
  grantId: string;
  toolName: string;
  /** The definition the approver was shown; the grant covers calls the gate sees so only. */
  definition?: string;
  grantedBy?: DecidedBy;
  /** ISO-8601. */
  at: string;
}

/** The run grant an applied decision gives, if it gives one. */
export function runGrantOf(call: WaitingCall, decision: Decision): RunGrant | undefined {
  if (decision.kind !== 'approve' || decision.runGrant !== true) return undefined;
  return {
    grantId: `run:${call.toolCallId}`,
    toolName: call.toolName,
    ...(call.definition !== undefined ? { definition: call.definition } : {}),
    ...(decision.decidedBy ? { grantedBy: decision.decidedBy } : {}),
    at: new Date(Date.now()).toISOString(),
  };
}

/**
 * A run grant in the shape the gate's grant checks read. It has no expiry of its own: it ends
 * with the run, so `expiresAt` is left empty and never compared.
 */
export function asGrant(
  grant: RunGrant,
  run: { agentId: string; resourceId: string | undefined },
): Grant {
  return {
    grantId: grant.grantId,
    agentId: run.agentId,
    toolName: grant.toolName,
    resourceId: run.resourceId ?? '',
    ...(grant.definition !== undefined ? { definition: grant.definition } : {}),
    ...(grant.grantedBy ? { grantedBy: grant.grantedBy } : {}),
    createdAt: grant.at,
    expiresAt: '',
  };
}
