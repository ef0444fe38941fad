import { TollgateError } from './errors.js';
import { idProblem } from './limits.js';

/**
 * A request whose approval fields replace the agent's instead of only tightening them (run
 * option `approvalOverride`): which fields, and who asked. Recorded in the run's input and on
 * every gate entry of its audit trail.
 */
export interface ApprovalOverride {
  /** The request's fields, as named in the run options (`requireToolApproval`, `approval.quorum`). */
  fields: string[];
  /** The identity of the caller that asked, when the handle knew it (the HTTP token's). */
  by?: string;
}

/** What to do when an approval deadline passes. The call is recorded as `expired` either way. */
export type OnTimeout = 'decline' | 'approve' | 'fail';

/**
 * Governance of one gated call (SPEC §10), in the JSON form the workflow acts on. `remindEveryMs`
 * is set only where a worker-side `notify` exists (`remindSource` says whose).
 */
export interface ApprovalRules {
  timeoutMs?: number;
  onTimeout?: OnTimeout;
  remindEveryMs?: number;
  remindSource?: 'tool' | 'agent';
  /** Who may decide: ids, or `role:<name>`. */
  approvers?: string[];
  /**
   * Set when a request narrowed the approvers of a tool or agent that has its own: a decider must
   * be one of `approvers` and also one of these.
   */
  alsoApprovers?: string[];
  /** Distinct approvals needed. Default 1. */
  quorum?: number;
  /** The run's requester (`requestContext.requester`) may not approve its own call. */
  separateRequester?: boolean;
  /** Who decides once a call has waited too long, level by level (docs/escalation.md). */
  escalate?: EscalationLevel[];
}

/**
 * One level of escalation in JSON form: once the call got `afterReminders` reminders, or waited
 * `afterMs` since its request (exactly one is set), its approvers become `to`.
 */
export interface EscalationLevel {
  afterReminders?: number;
  afterMs?: number;
  /** The call's approvers from then on: ids, or `role:<name>`. */
  to: string[];
}

/** Most levels one policy may declare, and most entries of one level's (or hand-off's) `to`. */
export const MAX_ESCALATION_LEVELS = 10;
export const MAX_APPROVER_ENTRIES = 50;
/**
 * Hand-offs of one call, at most: each is history (an update or a signal, a notice per channel),
 * so two approvers passing a call back and forth cannot fill the run's history.
 */
export const MAX_HAND_OFFS = 10;
/** Longest hand-off note, in characters. */
export const MAX_HAND_OFF_NOTE = 2000;

const UNITS: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
};

/** `'3 days'`, `'4 hours'`, `'90s'` or a number of ms → ms. Throws `INVALID_OPTIONS` naming `field`. */
export function parseDuration(value: string | number, field: string): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value > 0) return value;
  } else if (typeof value === 'string') {
    const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+?)s?\s*$/i.exec(value);
    const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
    if (match && unit !== undefined) return Number(match[1]) * unit;
  }
  throw new TollgateError(
    'INVALID_OPTIONS',
    `${field} must be a positive number of ms or a duration like '3 days' or '90 seconds', not ${JSON.stringify(value)}.`,
  );
}

/** Per field, the first layer that sets it wins: pass the most specific layer first. */
export function mergeRules(...layers: Array<ApprovalRules | undefined>): ApprovalRules {
  const merged: ApprovalRules = {};
  for (const layer of layers.slice().reverse()) {
    if (layer) Object.assign(merged, definedOnly(layer));
  }
  return merged;
}

/**
 * A request's rules laid over the tool's and agent's (`base`) so that they only tighten them
 * (issue 24): approvers narrow (a decider must satisfy both lists), the larger quorum and the
 * earlier deadline win, `separateRequester` can only be turned on. A request's deadline never
 * approves: when it comes first it declines, unless the request asked for `'fail'`. Loosening is
 * `mergeRules` with the request first, for an override the caller was allowed (`looseningsOf`).
 */
export function tightenRules(
  base: ApprovalRules,
  request: ApprovalRules | undefined,
): ApprovalRules {
  if (!request) return base;
  const rules = { ...base };
  if (request.approvers) {
    if (base.approvers) rules.alsoApprovers = request.approvers;
    else rules.approvers = request.approvers;
  }
  if (request.quorum !== undefined) rules.quorum = Math.max(base.quorum ?? 1, request.quorum);
  if (request.separateRequester) rules.separateRequester = true;
  const onTimeout = request.onTimeout === 'approve' ? undefined : request.onTimeout;
  const requestExpiresFirst =
    request.timeoutMs !== undefined &&
    (base.timeoutMs === undefined || request.timeoutMs < base.timeoutMs);
  if (requestExpiresFirst) {
    rules.timeoutMs = request.timeoutMs;
    rules.onTimeout = onTimeout ?? (base.onTimeout === 'approve' ? 'decline' : base.onTimeout);
  } else if (onTimeout !== undefined) {
    rules.onTimeout = onTimeout;
  }
  return definedOnly(rules);
}

/**
 * The request fields that can only loosen an agent's gates, named as in the run options: no gate
 * at all, a deadline that approves, four-eyes turned off.
 */
export function looseningsOf(
  requireToolApproval: unknown,
  approval: { onTimeout?: string; separateRequester?: boolean } | undefined,
): string[] {
  return [
    ...(requireToolApproval === false ? ['requireToolApproval'] : []),
    ...(approval?.onTimeout === 'approve' ? ['approval.onTimeout'] : []),
    ...(approval?.separateRequester === false ? ['approval.separateRequester'] : []),
  ];
}

function definedOnly(rules: ApprovalRules): ApprovalRules {
  return Object.fromEntries(Object.entries(rules).filter(([, value]) => value !== undefined));
}

/** Checks the JSON-safe parts of an approval policy, wherever it was written. */
export function checkRules(rules: ApprovalRules, where: string): ApprovalRules {
  const { onTimeout, approvers, quorum } = rules;
  if (onTimeout !== undefined && !['decline', 'approve', 'fail'].includes(onTimeout)) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `${where}.onTimeout must be 'decline', 'approve' or 'fail', not ${JSON.stringify(onTimeout)}.`,
    );
  }
  if (
    approvers !== undefined &&
    !(Array.isArray(approvers) && approvers.every((a) => typeof a === 'string' && a !== ''))
  ) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `${where}.approvers must be a list of ids or 'role:<name>' strings.`,
    );
  }
  const badApprover = approvers
    ?.map((approver, at) => idProblem(approver, `${where}.approvers[${at}]`))
    .find((problem) => problem !== undefined);
  if (badApprover) throw new TollgateError('INVALID_OPTIONS', badApprover);
  if (rules.escalate !== undefined) checkEscalation(rules.escalate, `${where}.escalate`);
  if (quorum !== undefined && (!Number.isInteger(quorum) || quorum < 1)) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `${where}.quorum must be a whole number of at least 1, not ${String(quorum)}.`,
    );
  }
  return rules;
}

/**
 * What is wrong with a list of approver entries named `field` (empty, too long, a bad entry), or
 * `undefined` when it is usable. Shared by rules, escalation levels and hand-off targets.
 */
export function approversProblem(entries: unknown, field: string): string | undefined {
  if (!Array.isArray(entries) || entries.length === 0) {
    return `${field} must be a non-empty list of ids or 'role:<name>' strings.`;
  }
  if (entries.length > MAX_APPROVER_ENTRIES) {
    return `${field} has ${entries.length} entries; use at most ${MAX_APPROVER_ENTRIES} (a role names a group).`;
  }
  return entries
    .map((entry, at) => idProblem(entry, `${field}[${at}]`))
    .find((problem) => problem !== undefined);
}

function checkEscalation(levels: EscalationLevel[], where: string): void {
  const fail = (message: string) => {
    throw new TollgateError('INVALID_OPTIONS', message);
  };
  if (!Array.isArray(levels) || levels.length === 0 || levels.length > MAX_ESCALATION_LEVELS) {
    fail(`${where} must be 1 to ${MAX_ESCALATION_LEVELS} levels of { after, to }.`);
  }
  levels.forEach((level, at) => {
    const problem = approversProblem(level.to, `${where}[${at}].to`);
    if (problem) fail(problem);
    const { afterReminders: reminders, afterMs } = level;
    const byReminders = Number.isInteger(reminders) && reminders! >= 1;
    const byTime = typeof afterMs === 'number' && Number.isFinite(afterMs) && afterMs > 0;
    if (byReminders === byTime || (reminders !== undefined && !byReminders)) {
      fail(
        `${where}[${at}].after must be a duration ('2 hours', ms) or { reminders: a whole number ≥ 1 }.`,
      );
    }
  });
}
