/**
 * What the workflow tells the channel notifier about a waiting call (docs/channels.md).
 * JSON-safe, shared by the workflow, the worker's notifier activity and tests.
 */
import type { DecisionChannel, WaitingCallFacts } from './audit-types.js';
import type { DecidedBy, Reassignment } from './decision-types.js';

/**
 * A request, a reminder while it waits, the notice that it expired, or that other approvers
 * decide it now (its rules escalated it, or an approver handed it off). `decided` goes to
 * interactive Slack channels only: the call was decided elsewhere than by a click in them, and
 * its message is rewritten to say so (docs/slack.md).
 */
export type ChannelNoticeKind =
  'request' | 'reminder' | 'expired' | 'escalation' | 'hand-off' | 'decided';

/** A decided notice's outcome: the decision the run's audit recorded for the call. */
export interface NoticeOutcome {
  decision: 'approved' | 'declined';
  channel: DecisionChannel;
  decidedBy?: DecidedBy;
  /** ISO-8601: when the run recorded it. */
  at: string;
}

/** The part of an agent's manifest that says where its waiting calls are posted. */
export interface ChannelManifest {
  /** Names of the webhooks (`channels.webhooks[].name`) that get this agent's notices. */
  targets: string[];
  /** Reminders to the channels while a call waits, ms; none when absent. */
  remindEveryMs?: number;
  /**
   * The targets that are interactive Slack channels (`channels.slack[].name`), whose messages
   * a decision made elsewhere rewrites; absent in manifests from before that.
   */
  slack?: string[];
}

/** The notifier activity's input: one notice for one webhook. */
export interface ChannelNoticeInput extends WaitingCallFacts {
  target: string;
  kind: ChannelNoticeKind;
  /**
   * `<runId>/<toolCallId>/<kind>[/<n>]`: the same for every attempt of one notice, sent as the
   * `x-tollgate-notice-id` header so a receiver can drop the rare repeat (see docs/channels.md).
   */
  noticeId: string;
  /** ISO-8601: the call's own approval deadline, when it has one. */
  expiresAt?: string;
  /** Reminders: how long the call has waited, ms. */
  waitedMs?: number;
  /** Expiry notices: what the call's policy did. */
  onTimeout?: 'decline' | 'approve' | 'fail';
  /** Who may decide now: after an escalation or a hand-off, the new approvers. */
  approvers?: string[];
  quorum?: number;
  /** Escalation and hand-off notices: what changed who decides. */
  reassigned?: Reassignment;
  /** Decided notices: what was decided, by whom, through which channel. */
  outcome?: NoticeOutcome;
}
