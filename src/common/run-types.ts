import type { ChannelManifest } from './channel-types.js';
import type { Chunk, FinishReason, ToolCallRef, Usage } from './chunks.js';
import type { ApprovalOverride, ApprovalRules } from './approval-rules.js';
import type { CompactionManifest } from './compaction-types.js';
import type { Reassignment } from './decision-types.js';
import type { JsonObject, JsonValue } from './json.js';
import type { ContinuedRun, HistoryLimits } from './continued-run.js';
import type { ForkStart } from './fork-types.js';
import type { BudgetAsk, BudgetLimits, RaiseBy } from './budget.js';
import type { RequestBudget, SharedBudget } from './shared-budget.js';

/** How a tool's calls are gated, as the workflow learns it from the agent's manifest. */
export type ToolApprovalMode = 'always' | 'never' | 'predicate';

export interface RetrySpec {
  /** Attempts in all, first included. */
  maximumAttempts: number;
  /** Delay before the first retry, ms. */
  initialIntervalMs: number;
}

export type { ToolNaming } from './tool-naming.js';

/** What the workflow needs to know about one tool; recorded once per run in history. */
export interface ToolManifest {
  /** The name the model sees (see `ToolNaming`). */
  name: string;
  /** The tool's `id`, when it differs from `name`. */
  toolId?: string;
  /** Set for `agent-<key>` tools: the sub-agent that runs, as a child workflow, for each call. */
  delegate?: { agentId: string };
  /** JSON Schema (as a JSON string) of the input, to check arguments edited by an approver. */
  inputSchema?: string;
  /** The tool's own approval governance. */
  rules?: ApprovalRules;
  approval: ToolApprovalMode;
  /** JSON Schema (as a JSON string) of resume data, or the empty-object schema. */
  resumeSchema: string;
  /** Per-attempt execution limit, ms. */
  timeoutMs: number;
  /** A worker that stops heartbeating for this long is presumed dead and the attempt retried, ms. */
  heartbeatTimeoutMs?: number;
  retry: RetrySpec;
  /** `createTool({ local: true })`: ungated calls run as local activities. */
  local?: true;
}

/** How model steps are timed and retried; absent in manifests recorded before it existed. */
export interface ModelStepManifest {
  timeoutMs: number;
  heartbeatTimeoutMs: number;
  retry: RetrySpec;
}

/** The agent as the workflow sees it: names, flags and schemas, never code. */
export interface AgentManifest {
  agentId: string;
  /** Absent in manifests recorded before tools were named by key: those runs name them by id. */
  toolNaming?: 'key';
  tools: Record<string, ToolManifest>;
  /** The agent's `defaultOptions.requireToolApproval`, reduced to what the workflow can act on. */
  defaultPolicy: 'always' | 'never' | 'function';
  maxSteps: number;
  modelStep?: ModelStepManifest;
  /** Messages of the thread a run with memory starts from. */
  lastMessages?: number;
  /** The agent's `defaultOptions.autoResumeSuspendedTools`. */
  autoResume?: boolean;
  /** The agent's default approval governance. */
  rules?: ApprovalRules;
  /** Where the agent's waiting calls are posted (docs/channels.md); absent: nowhere. */
  channels?: ChannelManifest;
  /** When runs continue as new; absent in manifests recorded before: the defaults apply. */
  history?: HistoryLimits;
  /** Present when the agent runs its model steps as local activities. */
  execution?: { modelSteps: 'local' };
  /** Present when the agent compacts long conversations (`conversation.compact`). */
  conversation?: CompactionManifest;
  /** Present when the agent declares a `budget` (docs/budgets.md): its limits and approval rules. */
  budget?: {
    limits: BudgetLimits;
    rules?: ApprovalRules;
    shared?: SharedBudget[];
    raiseBy?: RaiseBy;
  };
  /** Live approval rules when the run started (docs/live-policies.md): tool → whether it waits. */
  livePolicy?: Record<string, boolean>;
}

/** The internal `autoResume` update: a user message that may resume a suspended call. */
export interface AutoResumeInput {
  toolCallId: string;
  message: string;
  /** The request's `autoResumeSuspendedTools`; the agent's default applies when absent. */
  requested?: boolean;
}

export interface ExtractResumeDataInput {
  agentId: string;
  toolName: string;
  args: JsonValue;
  suspendPayload: JsonValue;
  resumeSchema: string;
  message: string;
}

/** Where the request-level approval rule comes from. */
export type RequestPolicy =
  | { kind: 'always' }
  | { kind: 'never' }
  /** Not set on the request: the agent's default applies. */
  | { kind: 'agent-default' }
  /** A function held by the process that started the run, served on its own task queue. */
  | { kind: 'function'; taskQueue: string }
  /** A policy registered by name on the agent's workers. */
  | { kind: 'named'; name: string };

/** Input of the `agentRun` workflow. */
export interface RunInput {
  agentId: string;
  /** AI SDK model messages that open the conversation. */
  messages: JsonValue[];
  requestPolicy: RequestPolicy;
  maxSteps?: number;
  requestContext: JsonObject;
  threadId?: string;
  resourceId?: string;
  /** Set on a sub-agent's run: the run and the call that delegated to it. */
  parent?: DelegationParent;
  /** The request's approval governance (its JSON-safe part). */
  approvalRules?: ApprovalRules;
  /**
   * Who requested the run: over HTTP, the token's identity. Four-eyes (`separateRequester`)
   * compares deciders with it; absent, with `requestContext.requester`.
   */
  requester?: string;
  /** Set when the request's rules replace the agent's, as its caller was allowed to. */
  approvalOverride?: ApprovalOverride;
  /**
   * The request's `activeTools`: the only tools this run may use (`common/active-tools.ts`);
   * absent: every tool of the agent.
   */
  activeTools?: string[];
  /** The request's `budget`: it only tightens the agent's (docs/budgets.md). */
  budget?: RequestBudget;
  /**
   * Set by the run itself when it starts under `REQUEST_TIGHTENS_PATCH`: the request's rules only
   * tighten the agent's (unless `approvalOverride`). Runs started before replace field by field.
   */
  requestTightens?: boolean;
  /**
   * Set by a starter that hosts the agent and sees it do local work: the run describes its agent
   * as a local activity under `LOCAL_DESCRIBE_PATCH` (`src/workflows/describe-run.ts`).
   */
  describeLocally?: true;
  /**
   * Set by a starter whose runs record one patch marker (a runtime, for a run it does not start
   * with `describeLocally`; a run, for its sub-agent runs): the run first tries to describe its
   * agent as a local activity on the worker that takes its first workflow task, under
   * `LOCAL_DESCRIBE_PATCH`, and on the agent's queue when that worker does not host it
   * (`src/workflows/describe-run.ts`). Workers before it ignore it and describe as before.
   */
  describeHere?: true;
  /** Set on every execution after the first: what the run carried over (continue-as-new). */
  continued?: ContinuedRun;
  /** Set on a fork (docs/fork.md): the run and step it starts from, and its first step's calls. */
  fork?: ForkStart;
}

export interface DelegationParent {
  runId: string;
  toolCallId: string;
  /** Id of the run at the top of the delegation tree; request policies are kept under it. */
  rootRunId: string;
}

/**
 * What a sub-agent's run tells its parent whenever the calls it waits on change: the parent shows
 * them on its own stream and routes decisions back down (SPEC §7).
 */
export interface ChildStatus {
  /** The parent's delegation call. */
  toolCallId: string;
  /** Increases with every report; older reports are ignored. */
  version: number;
  /** Nothing runs below: the child only waits. */
  idle: boolean;
  waiting: PendingToolCall[];
}

/** Result of a closed run, as shown in Temporal UI. */
export interface RunResult {
  finishReason: FinishReason;
  text: string;
  steps: number;
  usage: Usage;
  /**
   * The end of the run's chunk log, through its `finish`, when it is small (`ChunkLog.lastChunks`):
   * a client without the run's worker reads it from the close event its history watch already has,
   * instead of querying the closed run, which replays it whole. Not in a sub-agent run's result.
   */
  lastChunks?: LastChunks;
}

/** The last chunks of a run's log, from `offset` (an offset in the whole log) to its end. */
export interface LastChunks {
  offset: number;
  chunks: Chunk[];
}

/** A call waiting for a decision, as returned by the `pendingToolCalls` query (SPEC §9). */
export interface PendingToolCall extends ToolCallRef {
  requiresApproval: boolean;
  fingerprint: string;
  suspendPayload?: JsonValue;
  /** JSON Schema (as a JSON string) of the data that resumes the call; for forms. */
  resumeSchema: string;
  /** When the call started waiting, ISO-8601. */
  requestedAt: string;
  /** For a call inside a sub-agent: the agent ids from the run's own agent down to the call's. */
  path?: string[];
  /** When the call's approval expires, ISO-8601. */
  expiresAt?: string;
  /** Who may decide, when restricted: ids or `role:<name>`. */
  approvers?: string[];
  /** Set when the request narrowed `approvers`: a decider must also be one of these. */
  alsoApprovers?: string[];
  /** Distinct approvals needed, when more than one. */
  quorum?: number;
  /** Approvals so far, for a quorum. */
  approvals?: Array<{ id: string; at: string }>;
  /** Why the gate stopped the call, when its policy said (e.g. an MCP tool whose definition changed). */
  gateNote?: string;
  /** Escalations and hand-offs of the call, in order; `approvers` is the last one's `to`. */
  reassigned?: Reassignment[];
  /**
   * The tool definition the approver is shown (an MCP tool's definition fingerprint): the approval
   * binds to it, and a grant given with it covers that definition only.
   */
  definition?: string;
  /**
   * Set on a budget approval only (docs/budgets.md), which is no tool call: what it asks for.
   * Approving it needs an `amount`.
   */
  budget?: BudgetAsk;
}

export type {
  EvaluateGatesInput,
  ExecuteToolInput,
  ExecuteToolOutput,
  GateVerdict,
  ModelStepInput,
  ModelStepOutput,
  ModelToolCall,
} from './activity-types.js';

export type { Chunk };

/** One waiting run, as `listSuspendedRuns` lists it (SPEC §9). */
export interface SuspendedRun {
  runId: string;
  status: 'suspended';
  agentId: string;
  threadId?: string;
  resourceId?: string;
  /** When the run's earliest waiting call started to wait, ISO-8601. */
  suspendedAt: string;
  /** Each with `requestedAt`, when it started to wait. Empty when `unavailable`. */
  toolCalls: PendingToolCall[];
  /**
   * The run waits (its search attributes say so) but its worker did not answer in time, so its
   * calls are not listed; decide it once a worker is up.
   */
  unavailable?: true;
}

export type {
  ActiveToolsAuditEntry,
  AuditEntry,
  CompactionAuditEntry,
  DecisionChannel,
  MovedAuditEntry,
  ReminderInfo,
  ReminderInput,
  ToolCallAuditEntry,
} from './audit-types.js';
export type {
  AppliedDecision,
  DecidedBy,
  DecisionInput,
  DecisionKind,
  HandedOff,
  HandOffInput,
  Reassignment,
} from './decision-types.js';
export type { ThreadAppend, ThreadInput, ThreadRef } from './thread-types.js';
