import {
  checkRules,
  parseDuration,
  type ApprovalRules,
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
  return checkRules(rules, where);
}
