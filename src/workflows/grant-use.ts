import { log, workflowInfo } from '@temporalio/workflow';
import type { Grant } from '../common/grant-types.js';
import { grantCovers } from '../common/grants.js';
import type { ModelToolCall, ToolManifest } from '../common/run-types.js';
import { findGrants } from './activity-calls.js';
import { approvalRulesOf } from './approval-wait.js';
import { auditRef } from './audit-log.js';
import type { GateOutcome } from './gates.js';
import { checkGovernance } from './governance.js';
import { asGrant, coveredWaiting, runGrantOf } from './run-grants.js';
import type { RunState } from './run-state.js';
import type { ToolRunContext } from './tool-run-context.js';
import { isPatched } from './patch-markers.js';
import { GRANTS_NOTICES_PATCH, GRANTS_PATCH } from './patch-ids.js';
import type { Decision, WaitingCall } from './waiting-call.js';

/**
 * The grants that let this step's gated calls run without waiting, by tool call id. Asked only
 * for runs with a resource (every grant names one) that have gated calls of their own tools, in
 * one activity per step; a registry that cannot be read leaves every call waiting (fail safe).
 */
export async function grantsFor(
  context: ToolRunContext,
  calls: ModelToolCall[],
  gates: Map<string, GateOutcome>,
): Promise<Map<string, Grant>> {
  const granted = new Map<string, Grant>();
  const { input, manifest } = context;
  const { resourceId, threadId } = input;
  const candidates = calls.filter((call) => {
    const tool = manifest.tools[call.toolName];
    const gate = gates.get(call.toolCallId);
    // A changed tool outranks a grant: the grant was given for what its granter knew.
    if (gate?.grantable === false) return false;
    return (
      (gate?.gated ?? true) &&
      tool !== undefined &&
      !tool.delegate &&
      call.invalidReason === undefined
    );
  });
  // Runs without a run grant (every run before they existed) skip this: no command either way.
  const rest = withRunGrants(context, candidates, gates, granted);
  if (resourceId === undefined) return granted;
  if (rest.length === 0 || !isPatched(GRANTS_PATCH)) return granted;
  let found: Grant[];
  try {
    found = await findGrants({
      taskQueue: workflowInfo().taskQueue,
      agentId: manifest.agentId,
      resourceId,
      ...(threadId !== undefined ? { threadId } : {}),
      toolNames: [...new Set(rest.map((call) => call.toolName))],
    });
  } catch (error) {
    log.warn('Grants could not be read; the calls wait for a decision', { error: String(error) });
    return granted;
  }
  const run = { agentId: manifest.agentId, resourceId, threadId };
  for (const call of rest) {
    const tool = manifest.tools[call.toolName]!;
    const seen = { ...call, definition: gates.get(call.toolCallId)?.definition };
    const grant = found.find(
      (g) => grantCovers(g, run, seen, Date.now()) && standsIn(context, call, tool, g),
    );
    if (grant) granted.set(call.toolCallId, grant);
  }
  return granted;
}

/**
 * Puts the calls this run's own grants cover (`runGrant` approvals) into `granted`: same tool,
 * and the definition the gate sees now is the one the approver saw. Answers the other calls.
 */
function withRunGrants(
  context: ToolRunContext,
  candidates: ModelToolCall[],
  gates: Map<string, GateOutcome>,
  granted: Map<string, Grant>,
): ModelToolCall[] {
  const { state, manifest, input } = context;
  if (state.runGrants.length === 0) return candidates;
  const run = { agentId: manifest.agentId, resourceId: input.resourceId };
  return candidates.filter((call) => {
    const definition = gates.get(call.toolCallId)?.definition;
    const tool = manifest.tools[call.toolName]!;
    const grant = state.runGrants
      .filter((g) => g.toolName === call.toolName && g.definition === definition)
      .map((g) => asGrant(g, run))
      .find((g) => standsIn(context, call, tool, g));
    if (grant) granted.set(call.toolCallId, grant);
    return !grant;
  });
}

/**
 * A grant stands in for its granter's approval only where that approval would be accepted: the
 * call's approvers, its requester rule, and never for a quorum of more than one.
 */
function standsIn(
  context: ToolRunContext,
  call: ModelToolCall,
  tool: ToolManifest,
  grant: Grant,
): boolean {
  const { rules, requester } = approvalRulesOf(context, tool);
  if ((rules.quorum ?? 1) > 1) return false;
  const governed = {
    ...auditRef(call),
    ...(rules.approvers ? { approvers: rules.approvers } : {}),
    ...(rules.alsoApprovers ? { alsoApprovers: rules.alsoApprovers } : {}),
    ...(requester !== undefined ? { requester } : {}),
  };
  const decidedBy = grant.grantedBy;
  return checkGovernance(governed, 'approve', decidedBy ? { decidedBy } : {}) === undefined;
}

/** Records that `grant` approved `call`: the audit shows the grant and who gave it. */
export function useGrant(
  state: RunState,
  call: Pick<ModelToolCall, 'toolCallId' | 'toolName' | 'toolId' | 'fingerprint'>,
  grant: Grant,
): void {
  state.calls.decided.add(call.toolCallId);
  const grantedBy = grant.grantedBy;
  state.audit.add({
    type: 'grant-used',
    ...auditRef(call),
    grantId: grant.grantId,
    ...(grantedBy ? { grantedBy } : {}),
    fingerprint: call.fingerprint,
    // A run grant has none: it ends with the run.
    ...(grant.expiresAt !== '' ? { expiresAt: grant.expiresAt } : {}),
  });
  state.audit.add({
    type: 'decision',
    ...auditRef(call),
    decision: 'approved',
    channel: 'grant',
    fingerprint: call.fingerprint,
    ...(grantedBy ? { decidedBy: grantedBy } : {}),
    grantId: grant.grantId,
  });
}

/**
 * An applied approval that gives a run grant: the run keeps it, and it approves the tool's calls
 * already waiting in the run that it covers (`coveredWaiting`), each recorded as a later call's
 * use of the grant would be. Runs from before (and runs where it covers nothing) ask no patch.
 */
export function giveRunGrant(state: RunState, call: WaitingCall, decision: Decision): void {
  const grant = runGrantOf(call, decision);
  // A quorum's partial approval gives nothing (the judge refuses a run grant there anyway).
  if (!grant || state.calls.waiting.has(call.toolCallId)) return;
  state.runGrants.push(grant);
  const covered = coveredWaiting(state.calls.inOrder(), grant);
  if (covered.length === 0 || !isPatched(GRANTS_NOTICES_PATCH)) return;
  const standing = asGrant(grant, { agentId: state.agentId, resourceId: undefined });
  const by = grant.grantedBy ? { decidedBy: grant.grantedBy } : {};
  for (const waiting of covered) {
    useGrant(state, waiting, standing);
    state.calls.settle(waiting, { kind: 'approve', ...by });
  }
}
