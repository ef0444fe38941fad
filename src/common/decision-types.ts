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
  /** When given, the run must be a run of this agent (a client steering one agent sets it). */
  agentId?: string;
  /**
   * ISO-8601 instant after which the run refuses this decision (`DECISION_DEADLINE_PASSED`),
   * judged by workflow time when the decision reaches the run. The SDK sets it to now + its wait
   * + a margin; raw signals and updates should set it so a late delivery cannot apply.
   */
  deadline?: string;
  /**
   * `'link'` when the decision came through a signed link (docs/channels.md); recorded as
   * the decision's audit channel. Updates only: a signal carrying it is refused.
   */
  channel?: 'link';
  /**
   * The approval comes from a standing grant that covers the call (docs/grant-release.md): the
   * run records `grant-used` and the decision on channel `grant`; `decidedBy` must be who gave
   * the grant, judged like any approval. Updates only, approvals only, never a quorum.
   */
  grant?: DecisionGrant;
}

/** The grant a decision applies (`DecisionInput.grant`). */
export interface DecisionGrant {
  grantId: string;
  /** ISO-8601: when the grant expires; recorded in the `grant-used` audit entry. */
  expiresAt: string;
}

export type DecisionKind = 'approve' | 'decline' | 'resume';

/** What an update returns once its decision is applied. */
export interface AppliedDecision {
  toolCallId: string;
  toolName: string;
  /** `approval-recorded`: one approval of a quorum; the call still waits for more. */
  decision: 'approved' | 'declined' | 'resumed' | 'approval-recorded';
  /** Chunk-log offset at which the run's continuation starts. */
  offset: number;
}
