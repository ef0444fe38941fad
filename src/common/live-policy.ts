/**
 * Live approval policies (docs/live-policies.md): an operator's rule, changed while runs wait,
 * that a tool of an agent needs (or no longer needs) approval. Kept in Temporal only, in one
 * registry workflow per task queue; runs read it when they start and hear of each change.
 * JSON-safe and dependency-free, shared by the workflow, the worker, the client and the server.
 */
import type { DecidedBy } from './decision-types.js';
import type { ReleasedCall } from './grant-types.js';

/**
 * GET `/api/live-policies?agentId=`: the rules in force (`read`), JSON `LivePoliciesResponse`.
 * POST: body `LivePolicyChange` (`admin`, no resource limit), JSON `LivePolicyResult`.
 */
export const LIVE_POLICIES_ROUTE = '/live-policies';

export interface LivePoliciesResponse {
  rules: LiveToolRule[];
}

/** Most live rules one task queue keeps. */
export const MAX_LIVE_RULES = 500;

/** A change an operator sends: `requireApproval: null` drops the rule (the code's rules apply). */
export interface LivePolicyChange {
  agentId: string;
  /** The tool's name as the model sees it (its key). */
  toolName: string;
  /** `false`: the tool no longer waits for approval; `true`: every call of it waits; `null`: as coded. */
  requireApproval: boolean | null;
  /** Why, up to 500 characters; kept with the rule and in the audit of the calls it released. */
  reason?: string;
}

/** A rule in force. */
export interface LiveToolRule {
  agentId: string;
  toolName: string;
  requireApproval: boolean;
  changedBy?: DecidedBy;
  /** ISO-8601. */
  changedAt: string;
  reason?: string;
}

/** The registry's state, in its memo. */
export interface LivePoliciesState {
  rules: LiveToolRule[];
}

export const EMPTY_LIVE_POLICIES: LivePoliciesState = { rules: [] };

/** What a run is told of a change (the `tollgate.livePolicy` update of `agentRun`). */
export interface RunPolicyChange {
  toolName: string;
  requireApproval: boolean | null;
  changedBy?: DecidedBy;
  reason?: string;
}

/** What a run did with a change: the waiting calls a relaxed rule released. */
export interface RunPolicyApplied {
  released: Array<{ toolCallId: string; toolName: string }>;
}

/** What a change did (`LivePolicies.set`): the rule stored, then each open run told of it. */
export interface LivePolicyResult {
  /** The rule now in force; absent when the change dropped it. */
  rule?: LiveToolRule;
  /** Waiting calls the change released (a relaxed rule only). */
  released: ReleasedCall[];
  /** Open runs that could not be told; new calls of theirs follow the rule they started with. */
  refused: Array<{ runId: string; error: { code: string; message: string } }>;
  /** Open runs beyond the limit of one change; send the change again to reach them. */
  skipped: number;
}

/** The problem with a change, or undefined. Names the bad field and the fix. */
export function changeProblem(change: unknown): string | undefined {
  const c = change as Partial<LivePolicyChange> | undefined;
  if (typeof c !== 'object' || c === null) return 'A policy change must be an object.';
  for (const field of ['agentId', 'toolName'] as const) {
    if (typeof c[field] !== 'string' || c[field] === '') {
      return `A policy change needs ${field} as a non-empty string, not ${JSON.stringify(c[field])}.`;
    }
  }
  if (c.requireApproval !== null && typeof c.requireApproval !== 'boolean') {
    return `requireApproval must be true, false or null (as coded), not ${JSON.stringify(c.requireApproval)}.`;
  }
  if (c.reason !== undefined && (typeof c.reason !== 'string' || c.reason.length > 500)) {
    return 'reason must be a string of at most 500 characters.';
  }
  return undefined;
}

/** The state with `change` applied at `at`. */
export function withChange(
  state: LivePoliciesState,
  change: LivePolicyChange & { changedBy?: DecidedBy },
  at: string,
): LivePoliciesState {
  const { agentId, toolName, requireApproval, changedBy, reason } = change;
  const others = state.rules.filter((r) => r.agentId !== agentId || r.toolName !== toolName);
  if (requireApproval === null) return { rules: others };
  const rule: LiveToolRule = {
    agentId,
    toolName,
    requireApproval,
    changedAt: at,
    ...(changedBy ? { changedBy } : {}),
    ...(reason !== undefined ? { reason } : {}),
  };
  return { rules: [...others, rule] };
}

/** An agent's rules as the workflow reads them: tool name → whether its calls wait. */
export function rulesOfAgent(state: LivePoliciesState, agentId: string): Record<string, boolean> {
  const rules: Record<string, boolean> = {};
  for (const rule of state.rules) {
    if (rule.agentId === agentId) rules[rule.toolName] = rule.requireApproval;
  }
  return rules;
}
