/** What a decision on a waiting tool call carries in, and what applying it gives back (SPEC §8, §10). */
import type { JsonValue } from './json.js';

/** Who decided, SPEC §10. */
export interface DecidedBy {
  id: string;
  roles?: string[];
}

/** The one argument of every decision signal and update (SPEC §8). */
export interface DecisionInput {
  toolCallId?: string;
  fingerprint?: string;
  reason?: string;
  decidedBy?: DecidedBy;
  resumeData?: JsonValue;
  /** Approve with edited arguments, checked against the tool's input schema. */
  args?: JsonValue;
  /**
   * A budget approval's raise of the run's limit (docs/budgets.md): a positive number, in tokens
   * or in the price table's currency. Required to approve a budget approval; refused elsewhere.
   */
  amount?: number;
  /** When given, the run must be a run of this agent (a client steering one agent sets it). */
  agentId?: string;
  /**
   * ISO-8601 instant after which the run refuses this decision (`DECISION_DEADLINE_PASSED`),
   * judged by workflow time when the decision reaches the run. The SDK sets it to now + its wait
   * + a margin; raw signals and updates should set it so a late delivery cannot apply.
   */
  deadline?: string;
  /**
   * `'link'` when the decision came through a signed link (docs/channels.md), `'slack'` when
   * through a Slack button (docs/slack.md); recorded as the decision's audit channel. Updates
   * only: a signal carrying it is refused.
   */
  channel?: 'link' | 'slack';
  /**
   * The approval comes from a standing grant that covers the call (docs/grant-release.md): the
   * run records `grant-used` and the decision on channel `grant`; `decidedBy` must be who gave
   * the grant, judged like any approval. Updates only, approvals only, never a quorum.
   */
  grant?: DecisionGrant;
  /**
   * `true` with an approval: the tool's later gated calls in this run (and only this run) run
   * without asking, as long as the gate sees the definition this approval saw and the approver
   * could approve them (docs/grants.md "For this run"). No memory thread needed; nothing is kept
   * outside the run. Approvals only, never edited args, a quorum or a sub-agent's call.
   */
  runGrant?: boolean;
}

/** The grant a decision applies (`DecisionInput.grant`). */
export interface DecisionGrant {
  grantId: string;
  /** ISO-8601: when the grant expires; recorded in the `grant-used` audit entry. */
  expiresAt: string;
}

export type DecisionKind = 'approve' | 'decline' | 'resume';

/**
 * The one argument of the hand-off signal and update (docs/hand-off.md): a permitted approver
 * hands a waiting approval to other approvers. Named "hand-off", not "delegation", which in
 * Tollgate means sub-agent runs.
 */
export interface HandOffInput {
  toolCallId?: string;
  fingerprint?: string;
  /** Who hands the call off; required, and must be allowed to decide the call now. */
  decidedBy?: DecidedBy;
  /** The call's approvers from now on: ids, or `role:<name>` (at most 50 entries). */
  to: string[];
  /** Why, for the new approvers and the audit trail (at most 2,000 characters). */
  note?: string;
  /** As in `DecisionInput`. */
  agentId?: string;
  /** As in `DecisionInput`. */
  deadline?: string;
}

/** What a hand-off update returns once applied: the call still waits, for `approvers`. */
export interface HandedOff {
  toolCallId: string;
  toolName: string;
  decision: 'handed-off';
  approvers: string[];
  /** Chunk-log offset of the call's new `tool-call-approval` chunk. */
  offset: number;
}

/**
 * A change of who decides a waiting call: an escalation of its rules, or a hand-off by an
 * approver. Kept on the call in order (`PendingToolCall.reassigned`, the approval chunk).
 */
export interface Reassignment {
  kind: 'escalation' | 'hand-off';
  /** The call's approvers from then on. */
  to: string[];
  /** ISO-8601. */
  at: string;
  /** Escalations: the level (1 = the first) of the call's `escalate` rules. */
  level?: number;
  /** Hand-offs: who handed the call off, and their note. */
  by?: DecidedBy;
  note?: string;
}

/** What an update returns once its decision is applied. */
export interface AppliedDecision {
  toolCallId: string;
  toolName: string;
  /** `approval-recorded`: one approval of a quorum; the call still waits for more. */
  decision: 'approved' | 'declined' | 'resumed' | 'approval-recorded';
  /** Chunk-log offset at which the run's continuation starts. */
  offset: number;
}
