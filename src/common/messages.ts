/**
 * Every signal, update and query of Tollgate's workflows, typed once. The workflow installs its
 * handlers with these definitions, and the client, the activities and the server send with the
 * same ones, so argument and result types are never restated at a call site. The names
 * themselves live in `wire.ts` (SPEC §8), which stays free of any dependency for other languages'
 * clients to copy.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AuditEntry } from './audit-types.js';
import type { ChunkSlice } from './chunks.js';
import type {
  AppliedDecision,
  DecidedBy,
  DecisionInput,
  DecisionKind,
  HandedOff,
  HandOffInput,
} from './decision-types.js';
import type { Publication } from './directory-types.js';
import type { RunMovedNote } from './deployment-types.js';
import type { Grant, GrantRequest, GrantRevocation } from './grant-types.js';
import type { ForkPointAnswer } from './fork-point.js';
import type { JsonValue } from './json.js';
import type {
  LivePoliciesState,
  LivePolicyChange,
  RunPolicyApplied,
  RunPolicyChange,
} from './live-policy.js';
import type { McpPinsState, McpRepinRequest, StoredPin } from './mcp-pins.js';
import type { CounterCommit, SpentUsage } from './shared-budget.js';
import type { AutoResumeInput, ChildStatus, PendingToolCall } from './run-types.js';
import type { ThreadAppend } from './thread-types.js';
import {
  AUTO_RESUME_UPDATE,
  BUDGET_COUNTER_UPDATES,
  CHILD_STATUS_SIGNAL,
  DIRECTORY_UPDATES,
  FOLLOW_UPDATE,
  GRANTS_UPDATES,
  LIVE_POLICY_UPDATES,
  MCP_PINS_UPDATES,
  QUERIES,
  RUN_MOVED_SIGNAL,
  SIGNALS,
  THREAD_MESSAGES,
  UPDATES,
} from './wire.js';

/** A decision sent as a signal: fire and forget; a refusal is kept in the audit trail only. */
export const decisionSignals = {
  approve: defineSignal<[DecisionInput]>(SIGNALS.approve),
  decline: defineSignal<[DecisionInput]>(SIGNALS.decline),
  resume: defineSignal<[DecisionInput]>(SIGNALS.resume),
} as const satisfies Record<DecisionKind, unknown>;

/** A decision sent as an update: validated before it reaches history, answered when applied. */
export const decisionUpdates = {
  approve: defineUpdate<AppliedDecision, [DecisionInput]>(UPDATES.approveToolCall),
  decline: defineUpdate<AppliedDecision, [DecisionInput]>(UPDATES.declineToolCall),
  resume: defineUpdate<AppliedDecision, [DecisionInput]>(UPDATES.resumeToolCall),
} as const satisfies Record<DecisionKind, unknown>;

/** A hand-off sent as a signal (other languages' services); a refusal is kept in the audit only. */
export const handOffSignal = defineSignal<[HandOffInput]>(SIGNALS.handOff);

/** A hand-off sent as an update: validated before it reaches history, answered when applied. */
export const handOffUpdate = defineUpdate<HandedOff, [HandOffInput]>(UPDATES.handOffToolCall);

/** A user message on the thread resumes a suspended call. */
export const autoResumeUpdate = defineUpdate<AppliedDecision, [AutoResumeInput]>(
  AUTO_RESUME_UPDATE,
);

/** A slice of a run's chunk log; `limit` defaults to, and is capped at, 1000 chunks. */
export const chunksQuery = defineQuery<ChunkSlice, [{ offset: number; limit?: number }]>(
  QUERIES.chunks,
);

/** The first `upTo` messages of a run's conversation. */
export const conversationQuery = defineQuery<JsonValue[], [{ upTo: number }]>(QUERIES.conversation);

/** A run's conversation and tool calls at the end of one of its steps, for a fork. */
export const forkPointQuery = defineQuery<ForkPointAnswer, [{ step: number }]>(QUERIES.forkPoint);

/** The calls of a run that wait for a decision (SPEC §9). */
export const pendingToolCallsQuery = defineQuery<PendingToolCall[]>(QUERIES.pendingToolCalls);

/** A run's audit trail (SPEC §10). */
export const auditQuery = defineQuery<AuditEntry[]>(QUERIES.audit);

/**
 * A run's log from `offset`, answered once the log holds a `finish` at or after it (or the run lets
 * its followers go before a continue-as-new): docs/streams.md "Following by update".
 */
export const followUpdate = defineUpdate<ChunkSlice, [{ offset: number }]>(FOLLOW_UPDATE);

/** A sub-agent's run reports what it waits on to its parent run. */
export const childStatusSignal = defineSignal<[ChildStatus]>(CHILD_STATUS_SIGNAL);

/** An operator moved the run to another build; the run records it in its audit. */
export const runMovedSignal = defineSignal<[RunMovedNote]>(RUN_MOVED_SIGNAL);

/** A completed run appends its messages to its memory thread. */
export const threadAppendSignal = defineSignal<[ThreadAppend]>(THREAD_MESSAGES.append);

/** The last `last` messages of a memory thread. */
export const threadMessagesQuery = defineQuery<JsonValue[], [{ last: number }]>(
  THREAD_MESSAGES.messages,
);

/** A worker publishes its hosting of an agent in the directory entry. */
export const directoryPublishUpdate = defineUpdate<void, [Publication]>(DIRECTORY_UPDATES.publish);

/** A worker, by identity, withdraws its hosting. */
export const directoryWithdrawUpdate = defineUpdate<void, [string]>(DIRECTORY_UPDATES.withdraw);

/** Adds a checked grant to the registry; answers it with its id and times. */
export const grantCreateUpdate = defineUpdate<Grant, [GrantRequest]>(GRANTS_UPDATES.create);

/** Revokes a live grant; answers the grant revoked. */
export const grantRevokeUpdate = defineUpdate<Grant, [GrantRevocation]>(GRANTS_UPDATES.revoke);

/** Stores pins for tools of the server that have none yet; answers the record as it then is. */
export const mcpPinUpdate = defineUpdate<McpPinsState, [Record<string, StoredPin>]>(
  MCP_PINS_UPDATES.pin,
);

/** Drops stored pins on purpose (an operator accepts changed definitions); answers the record. */
export const mcpRepinUpdate = defineUpdate<McpPinsState, [McpRepinRequest]>(MCP_PINS_UPDATES.repin);

/** Adds one step's usage to a shared budget's counter; answers the counter's new total. */
export const budgetCommitUpdate = defineUpdate<SpentUsage, [CounterCommit]>(
  BUDGET_COUNTER_UPDATES.commit,
);

/** Changes a live approval rule (docs/live-policies.md); answers the registry's state. */
export const livePolicyChangeUpdate = defineUpdate<
  LivePoliciesState,
  [LivePolicyChange & { changedBy?: DecidedBy }]
>(LIVE_POLICY_UPDATES.change);

/** Tells a run of a live rule's change; answers the waiting calls a relaxed rule released. */
export const runPolicyUpdate = defineUpdate<RunPolicyApplied, [RunPolicyChange]>(
  LIVE_POLICY_UPDATES.run,
);
