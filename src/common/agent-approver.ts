/**
 * Whether an agent (a caller whose token has `kind: 'agent'`, docs/a2a.md) may approve a waiting
 * call. Pure. A person's `decide` scope lets them approve any call without `approvers`; an agent
 * gets no such default: it approves only where the call's rules name it, by id or by one of its
 * roles, so a person wrote down that this agent decides. The run still judges the decision like
 * any other (quorum, requester, deadlines) once it arrives.
 */
import type { DecidedBy } from './decision-types.js';
import { TollgateError } from './errors.js';

/** The parts of a waiting call that say who may approve it. */
export interface ApproverList {
  toolName: string;
  approvers?: string[];
  alsoApprovers?: string[];
}

/** An approver entry is an id, or `role:<name>` for anyone with that role. */
export function isApprover(approvers: string[], by: DecidedBy): boolean {
  return approvers.some((entry) =>
    entry.startsWith('role:')
      ? (by.roles ?? []).includes(entry.slice('role:'.length))
      : entry === by.id,
  );
}

/** True when the call's approvers (and, if set, its narrowed approvers) name the agent. */
export function rulesNameAgent(call: ApproverList, identity: DecidedBy): boolean {
  if (!call.approvers || !isApprover(call.approvers, identity)) return false;
  return !call.alsoApprovers || isApprover(call.alsoApprovers, identity);
}

/** Throws `AGENT_MAY_NOT_APPROVE` unless the call's rules name the agent as an approver. */
export function requireAgentApprover(call: ApproverList, identity: DecidedBy): void {
  if (rulesNameAgent(call, identity)) return;
  throw new TollgateError(
    'AGENT_MAY_NOT_APPROVE',
    `Agent "${identity.id}" may not approve the call of "${call.toolName}": its approval rules do not name it; a person must approve, or name the agent in the tool's approvers (approval: { approvers: ['${identity.id}'] }).`,
  );
}
