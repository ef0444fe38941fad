/**
 * `tollgate/client`: the Tollgate HTTP API from browsers and Node. Uses only `fetch`,
 * `ReadableStream` and `TextDecoder`; imports nothing from Temporal, Node or the AI SDK.
 */
export { TollgateClient, type TollgateClientOptions } from './tollgate-client.js';
export {
  RemoteAgent,
  type RemoteRunOptions,
  type RemoteApproveOptions,
  type RemoteDeclineOptions,
  type RemoteHandOffOptions,
  type RemoteResumeOptions,
  type RemoteSendToolApprovalOptions,
  type RemoteListSuspendedRunsOptions,
  type RemoteMoveRunOptions,
} from './remote-agent.js';
export { TollgateHttpError, isTollgateHttpError } from './http-error.js';
export { SseParser, readSseEvents, type SseEvent } from './sse-parser.js';
export type { FetchLike, RequestOptions } from './transport.js';
export { AgentStream, type SuspendPayload, type ToolResultRef } from '../stream/agent-stream.js';
export type { AgentOutput, StepOutput } from '../stream/agent-output.js';
export type {
  Chunk,
  ChunkType,
  ChunkPayloads,
  FinishReason,
  Usage,
  ToolCallRef,
} from '../common/chunks.js';
export type { PendingToolCall } from '../common/run-types.js';
export type { JsonValue, JsonObject } from '../common/json.js';
export type { ForkChoice, ForkedFrom, ForkListing, ForkRequest } from '../common/fork-types.js';
export type { AgentDescription, AgentListing } from '../common/directory-types.js';
export * from '../common/http-api.js';
export type { BatchDecision, BatchDecisionResult } from '../common/batch-decisions.js';
export { RemoteGrants } from './remote-grants.js';
export {
  elicitationReply,
  ELICITATION_REPLY_KEY,
  type McpElicitationAction,
  type McpElicitationReply,
} from '../common/mcp-elicitation-reply.js';
export { RemoteLivePolicies } from './remote-live-policies.js';
export type { LivePolicyChange, LivePolicyResult, LiveToolRule } from '../common/live-policy.js';
export type {
  Grant,
  GrantInput,
  GrantRelease,
  GrantWithDecision,
  RunGrantWithDecision,
  ApprovalGrant,
  RefusedRelease,
  ReleasedCall,
} from '../common/grant-types.js';
export type { BuildRef, MovedRun } from '../common/deployment-types.js';
