import { MAX_CARRIED_RUN_GRANTS } from '../common/continued-run.js';
import type { Grant, RunGrant } from '../common/grant-types.js';
import { checkGovernance } from './governance.js';
import type { Decision, WaitingCall } from './waiting-call.js';

/**
 * A grant for this run only (docs/grants.md "For this run"): given with an approval
 * (`DecisionInput.runGrant`), kept in the run's memory, rebuilt by replay from the decision's
 * update, and carried into the run's next execution at a continue-as-new; nothing outside the
 * run holds it.
 */
export type { RunGrant };

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

/**
 * The waiting calls a run grant just given approves (patch `tollgate-run-grants-decided-notices`):
 * by the rules a later call of the tool meets, and only calls that wait for an approval in this
 * run itself (not in a sub-agent's run, not a budget's), for the definition the approver saw,
 * without a quorum over one, that the granter could approve. Pure.
 */
export function coveredWaiting(waiting: Iterable<WaitingCall>, grant: RunGrant): WaitingCall[] {
  const by = grant.grantedBy ? { decidedBy: grant.grantedBy } : {};
  return [...waiting].filter(
    (call) =>
      call.kind === 'approve' &&
      call.toolName === grant.toolName &&
      call.route === undefined &&
      call.budget === undefined &&
      (call.quorum ?? 1) <= 1 &&
      call.definition === grant.definition &&
      checkGovernance(call, 'approve', by) === undefined,
  );
}

/**
 * The run grants an execution hands to the next: the newest of each tool, definition and
 * granter (an older one covers nothing the newer does not), at most `MAX_CARRIED_RUN_GRANTS`,
 * oldest first. Pure.
 */
export function carriedRunGrants(grants: readonly RunGrant[]): RunGrant[] {
  const newest = new Map<string, RunGrant>();
  for (const grant of grants) {
    const key = JSON.stringify([
      grant.toolName,
      grant.definition ?? null,
      grant.grantedBy?.id ?? null,
    ]);
    newest.delete(key);
    newest.set(key, grant);
  }
  return [...newest.values()].slice(-MAX_CARRIED_RUN_GRANTS);
}
