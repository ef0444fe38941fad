/** Public API of Tollgate. */
export {
  Agent,
  type AgentConfig,
  type AgentDefaultOptions,
  type AgentHooks,
  type ToolHookCall,
  type MemoryOptions,
  type ModelStepOptions,
  type ToolApprovalPolicy,
} from './definitions/agent.js';
export type {
  ApprovalPolicy,
  EscalationStep,
  ReminderInfo,
} from './definitions/approval-policy.js';
export type { HandOffOptions } from './temporal-client/hand-off.js';
export type { AgentBudget } from './definitions/budget-options.js';
export type {
  BudgetAsk,
  BudgetLimits,
  BudgetMetric,
  BudgetPrices,
  CostBudget,
  SharedBudgetRef,
  SharedScope,
  TokenBudget,
} from './common/budget.js';
export type { SharedBudget } from './common/shared-budget.js';
export type {
  CompactionInfo,
  ConversationCompactor,
  ConversationOptions,
} from './definitions/conversation-options.js';
export {
  keepRecentMessages,
  summarizeOlderMessages,
  type SummarizeOptions,
} from './definitions/compaction-strategies.js';
export {
  createTool,
  type Tool,
  type ToolConfig,
  type ToolExecutionContext,
  type ToolRetryOptions,
  type ApprovalPredicateContext,
  type GateAnswer,
  type SuspendOptions,
  type SuspendSignal,
} from './definitions/create-tool.js';
export {
  Tollgate,
  type TollgateOptions,
  type TemporalOptions,
  type GetAgentOptions,
} from './runtime.js';
export { SCOPE_ACTIONS, type Scope, type ScopeAction } from './common/scope.js';
export type { Versioning, WorkerDeployment, WorkerSettings } from './worker-settings.js';
export type {
  DeploymentCaller,
  DeploymentReport,
  Deployments,
  VersionReport,
  VersionStatus,
} from './temporal-client/deployments.js';
export type { DecisionSettings } from './temporal-client/decision-settings.js';
export type { DecideManyOptions } from './temporal-client/decide-many.js';
export type { ChannelsOptions, WebhookOptions } from './channels/channel-options.js';
export type {
  EmailOptions,
  EmailGroupOptions,
  EmailRecipient,
  SmtpOptions,
} from './channels/email-options.js';
export type { SlackAppOptions } from './channels/slack-options.js';
export type { ChannelNoticeInput, ChannelNoticeKind } from './common/channel-types.js';
export {
  MAX_BATCH_DECISIONS,
  type BatchDecision,
  type BatchDecisionResult,
} from './common/batch-decisions.js';
export type { TracingOptions } from './telemetry/tracing.js';
export type { LiveDeltaOptions, RedisLiveOptions } from './live/live-options.js';
export type { LiveChunk, LiveDeltaTransport, LiveListener } from './live/live-transport.js';
export { AgentClient } from './temporal-client/agent-client.js';
export { AgentStream, type SuspendPayload, type ToolResultRef } from './stream/agent-stream.js';
export type { AgentOutput, StepOutput } from './stream/agent-output.js';
export type {
  ListSuspendedRunsOptions,
  SuspendedRun,
  SuspendedRuns,
} from './temporal-client/list-suspended-runs.js';
export type { SendToolApprovalOptions } from './temporal-client/send-tool-approval.js';
export type {
  RunOptions,
  DecisionOptions,
  ApproveOptions,
  ResumeOptions,
  Messages,
} from './temporal-client/run-options.js';
export { TollgateError, isTollgateError, type TollgateErrorCode } from './common/errors.js';
export type {
  Chunk,
  ChunkType,
  ChunkPayloads,
  FinishReason,
  Usage,
  ToolCallRef,
} from './common/chunks.js';
export type {
  ActiveToolsAuditEntry,
  AuditEntry,
  CompactionAuditEntry,
  MovedAuditEntry,
  ToolCallAuditEntry,
  DecisionChannel,
  PendingToolCall,
  DecisionInput,
  AppliedDecision,
  DecidedBy,
  HandedOff,
  HandOffInput,
  Reassignment,
} from './common/run-types.js';
export type { JsonValue, JsonObject } from './common/json.js';
export type {
  ForkChoice,
  ForkedAuditEntry,
  ForkedFrom,
  ForkListing,
  ForkRequest,
} from './common/fork-types.js';
export type { AgentDescription, AgentListing } from './common/directory-types.js';
export { toolCallFingerprint } from './common/fingerprint.js';
export { canonicalJson } from './common/json.js';
export {
  AGENT_RUN_WORKFLOW,
  DEFAULT_TASK_QUEUE,
  SIGNALS,
  UPDATES,
  QUERIES,
  SEARCH_ATTRIBUTES,
} from './common/wire.js';
export {
  startDevServer,
  findTemporalCli,
  TUNED_DYNAMIC_CONFIG,
  type DevServer,
  type DevServerOptions,
} from './devserver/index.js';
export type { GrantCaller, GrantFilter, GrantRegistry } from './temporal-client/grants.js';
export type {
  Grant,
  GrantInput,
  GrantRelease,
  GrantWithDecision,
  RunGrantWithDecision,
  ApprovalGrant,
  RefusedRelease,
  ReleasedCall,
} from './common/grant-types.js';
export type { LivePolicies } from './temporal-client/live-policies.js';
export type { LivePolicyChange, LivePolicyResult, LiveToolRule } from './common/live-policy.js';
export type { McpPinRegistry, RepinCaller } from './temporal-client/mcp-pins.js';
export type { MoveRunOptions } from './temporal-client/move-run.js';
export type { BuildRef, MovedRun } from './common/deployment-types.js';
export type { McpPinsState, McpRepin, StoredPin } from './common/mcp-pins.js';
