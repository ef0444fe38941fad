import type { ApprovalOverride } from './approval-rules.js';
import type { JsonValue } from './json.js';
import type { AppliedDecision, DecidedBy, DecisionKind } from './decision-types.js';
import type { BuildRef } from './deployment-types.js';
import type { ForkedAuditEntry } from './fork-types.js';

/** How a decision reached the run. */
export type DecisionChannel =
  'update' | 'signal' | 'auto-resume' | 'link' | 'slack' | 'grant' | 'policy';

/** Whether a call waits for approval, which rule said so, and what it binds (its `gate` entry). */
export interface GateOutcome {
  gated: boolean;
  source: string;
  note?: string;
  /** `false`: no grant may cover the call (its tool's definition changed since it was pinned). */
  grantable?: boolean;
  /** The tool definition the gate saw (an MCP tool's fingerprint); the approval binds to it. */
  definition?: string;
  /** The run's request replaced the agent's approval rules (`approvalOverride`). */
  override?: ApprovalOverride;
  /**
   * The call's tool is not among the run's `activeTools`: the call was refused
   * (`TOOL_NOT_ALLOWED`) and no approval policy ran (`source` is `active-tools`).
   */
  notActive?: true;
}

/** One entry of a run's audit trail (SPEC §10), in the order things happened. */
export type AuditEntry =
  | ToolCallAuditEntry
  | CompactionAuditEntry
  | MovedAuditEntry
  | ActiveToolsAuditEntry
  | ForkedAuditEntry
  | PolicyChangeAuditEntry;

export type { ForkedAuditEntry };

/**
 * An operator changed a live approval rule of the run's agent (docs/live-policies.md) while the
 * run was open: from here on its calls of `toolName` follow it. About the run, so it names no call.
 */
export interface PolicyChangeAuditEntry {
  at: string;
  type: 'policy-change';
  toolCallId?: undefined;
  toolId?: undefined;
  toolName: string;
  /** `null`: the rule was dropped; the tool's coded rules apply again. */
  requireApproval: boolean | null;
  changedBy?: DecidedBy;
  reason?: string;
}

/**
 * The run was started with `activeTools`: the only tools it may use. The first entry of such a
 * run; about the whole run, so it names no call.
 */
export interface ActiveToolsAuditEntry {
  at: string;
  type: 'active-tools';
  toolCallId?: undefined;
  toolName?: undefined;
  toolId?: undefined;
  tools: string[];
}

/** An entry about one tool call: its gate, request, decisions, expiry and reminders. */
export type ToolCallAuditEntry = {
  at: string;
  toolCallId: string;
  toolName: string;
  /** The tool's `id`, when it differs from `toolName` (its key). */
  toolId?: string;
} & (
  | ({ type: 'gate' } & GateOutcome)
  | {
      type: 'request';
      kind: 'approval' | 'suspension';
      args: JsonValue;
      fingerprint: string;
      expiresAt?: string;
    }
  | {
      type: 'decision';
      decision: AppliedDecision['decision'];
      channel: DecisionChannel;
      fingerprint: string;
      decidedBy?: DecidedBy;
      reason?: string;
      /** Approved with edits: the arguments that ran, and their fingerprint. */
      editedArgs?: JsonValue;
      editedFingerprint?: string;
      /** A budget approval's raise of the run's limit (docs/budgets.md). */
      amount?: number;
      /** Approved by a standing grant (channel `grant`); `decidedBy` is who gave it. */
      grantId?: string;
    }
  | {
      /** A grant let the call run without waiting (docs/grants.md). */
      type: 'grant-used';
      /** A grant's id; `run:<toolCallId>` for a grant for this run only, given with that call's approval. */
      grantId: string;
      grantedBy?: DecidedBy;
      fingerprint: string;
      /** When the grant expires; absent for a grant for this run only. */
      expiresAt?: string;
    }
  | {
      /** The call's rules escalated it: `to` decides from now on (docs/escalation.md). */
      type: 'escalation';
      level: number;
      from?: string[];
      to: string[];
      waitedMs: number;
      reminders: number;
    }
  | {
      /** An approver handed the call to `to` (docs/hand-off.md). */
      type: 'hand-off';
      channel: DecisionChannel;
      decidedBy: DecidedBy;
      from?: string[];
      to: string[];
      note?: string;
      fingerprint: string;
    }
  | {
      /**
       * A live rule that no longer asks for approval released the waiting call: no person
       * approved it (docs/live-policies.md); its `decision` entry has channel `policy`.
       */
      type: 'policy-release';
      changedBy?: DecidedBy;
      reason?: string;
    }
  | {
      type: 'rejected-decision';
      kind: DecisionKind | 'handOff';
      channel: DecisionChannel;
      code: string;
      message: string;
      decidedBy?: DecidedBy;
    }
  | { type: 'expiry'; onTimeout: 'decline' | 'approve' | 'fail' }
  | { type: 'reminder'; waitedMs: number }
);

/**
 * The run compacted its conversation (`conversation.compact`, docs/long-runs.md) at the end of
 * step `step`. About the whole run, so it names no tool call.
 */
export interface CompactionAuditEntry {
  at: string;
  type: 'compaction';
  /** None: the entry is about the whole run (declared so reading them off any entry compiles). */
  toolCallId?: undefined;
  toolName?: undefined;
  toolId?: undefined;
  step: number;
  /** The conversation's size as JSON (UTF-8) before and after, bytes. */
  bytesBefore: number;
  bytesAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  /** Messages of the old conversation that are not in the new one unchanged. */
  messagesDropped: number;
}

/**
 * An operator moved the run to another build of its Worker Deployment (docs/deploying.md): its
 * next workflow task and everything after run on `to`. About the whole run, so it names no call.
 */
export interface MovedAuditEntry {
  at: string;
  type: 'moved';
  toolCallId?: undefined;
  toolName?: undefined;
  toolId?: undefined;
  from: BuildRef;
  to: BuildRef;
  movedBy?: DecidedBy;
  reason?: string;
}

/** A call that waits for a person, as reminders and channel notices describe it. */
export interface WaitingCallFacts {
  runId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  /** The tool's `id`, when it differs from `toolName`. */
  toolId?: string;
  args: JsonValue;
  fingerprint: string;
  /** ISO-8601: when the call started to wait. */
  requestedAt: string;
}

/** What a reminder's `notify` receives about the call that waits. */
export interface ReminderInfo extends WaitingCallFacts {
  /** How long the call has waited, ms. */
  waitedMs: number;
  /** ISO-8601, when the call has a deadline. */
  expiresAt?: string;
}

/** The reminder activity's input: whose `notify` to call, and what to tell it. */
export interface ReminderInput extends ReminderInfo {
  source: 'tool' | 'agent';
  /** The run's tool naming; absent: by id. */
  toolNaming?: 'key';
}

/**
 * A refused decision the run did not judge itself, for its audit (`REFUSED_DECISION_SIGNAL`):
 * a signed link refused by the HTTP server, or a link decision the run refused as an update.
 */
export interface RefusedDecisionNote {
  toolCallId: string;
  kind: 'approve' | 'decline';
  channel: 'link';
  code: string;
  message: string;
  decidedBy?: DecidedBy;
}
