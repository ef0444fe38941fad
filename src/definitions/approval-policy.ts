import {
  checkRules,
  parseDuration,
  type ApprovalRules,
  type EscalationLevel,
  type OnTimeout,
} from '../common/approval-rules.js';
import { TollgateError } from '../common/errors.js';
import type { ReminderInfo } from '../common/run-types.js';

export type { ReminderInfo };

/** Governance of gated calls (SPEC §10). On a tool, an agent's `defaultOptions` or a request. */
export interface ApprovalPolicy {
  /** Deadline for a decision: ms or a duration like `'3 days'`. Default: none. */
  timeout?: string | number;
  /** What happens at the deadline; recorded as `expired` either way. Default `'decline'`. */
  onTimeout?: OnTimeout;
  /**
   * While the call waits, `notify` (an activity on the worker: e-mail, chat, webhook) is called
   * every `every` (ms or a duration) until the call is decided or expires. Tools and agents only:
   * a function cannot travel with a request.
   */
  remind?: { every: string | number; notify: (pending: ReminderInfo) => Promise<void> | void };
  /** Who may approve or decline: ids, or `role:<name>`. Default: anyone. */
  approvers?: string[];
  /** Distinct approvers needed. Default 1. */
  quorum?: number;
  /** `requestContext.requester` may not approve its own call. Default false. */
  separateRequester?: boolean;
  /**
   * Escalation (docs/escalation.md): once a call has waited `after` (ms or a duration, counted
   * from its request) or got `after: { reminders: n }` reminders, its approvers become `to`
   * (ids or `role:<name>`) and the channels are told again. A list escalates level by level, in
   * order. The deadline (`timeout`) does not move: expiry stays its own outcome. Tools and
   * agents only, like `remind`. Default: none.
   */
  escalate?: EscalationStep | EscalationStep[];
}

/** One level of `escalate`. */
export interface EscalationStep {
  /** A duration since the request (ms or `'2 hours'`), or a number of reminders sent. */
  after: string | number | { reminders: number };
  /** Who decides from then on: an id, `role:<name>`, or a list of them. */
  to: string | string[];
}

/** The policy as rules the workflow can act on; throws `INVALID_OPTIONS` naming the bad field. */
export function toRules(
  policy: ApprovalPolicy | undefined,
  where: string,
  remindSource?: 'tool' | 'agent',
): ApprovalRules | undefined {
  if (policy === undefined) return undefined;
  const rules: ApprovalRules = {
    ...(policy.timeout !== undefined
      ? { timeoutMs: parseDuration(policy.timeout, `${where}.timeout`) }
      : {}),
    ...(policy.onTimeout !== undefined ? { onTimeout: policy.onTimeout } : {}),
    ...(policy.approvers !== undefined ? { approvers: policy.approvers } : {}),
    ...(policy.quorum !== undefined ? { quorum: policy.quorum } : {}),
    ...(policy.separateRequester !== undefined
      ? { separateRequester: policy.separateRequester }
      : {}),
  };
  if (policy.remind !== undefined) {
    if (!remindSource || typeof policy.remind.notify !== 'function') {
      throw new TollgateError(
        'INVALID_OPTIONS',
        `${where}.remind needs a notify function and belongs on a tool or an agent, where the worker can call it.`,
      );
    }
    rules.remindEveryMs = parseDuration(policy.remind.every, `${where}.remind.every`);
    rules.remindSource = remindSource;
  }
  if (policy.escalate !== undefined) {
    if (!remindSource) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        `${where}.escalate belongs on a tool or an agent: a request may not choose who approves its calls.`,
      );
    }
    rules.escalate = escalationLevels(policy.escalate, `${where}.escalate`);
  }
  return checkRules(rules, where);
}

function escalationLevels(escalate: EscalationStep | EscalationStep[], where: string) {
  const steps = Array.isArray(escalate) ? escalate : [escalate];
  return steps.map((step, at) => {
    const after = (step as Partial<EscalationStep> | undefined)?.after;
    const to = typeof step?.to === 'string' ? [step.to] : step?.to;
    return typeof after === 'object' && after !== null
      ? { afterReminders: after.reminders, to }
      : { afterMs: parseDuration(after as string | number, `${where}[${at}].after`), to };
  }) as EscalationLevel[];
}
