/**
 * What the workflow sends its activities and what they answer: model steps, tool execution and
 * gate evaluation. JSON-safe, shared by the sandbox and the worker.
 */
import type { FinishReason, ToolCallRef, Usage } from './chunks.js';
import type { ConversationRef } from './compaction-types.js';
import type { JsonObject, JsonValue } from './json.js';

/** A tool call the model made, with its fingerprint. */
export interface ModelToolCall extends ToolCallRef {
  fingerprint: string;
  /** Set when the model's arguments failed the tool's input schema or name no known tool. */
  invalidReason?: string;
}

export interface ModelStepInput {
  runId: string;
  agentId: string;
  step: number;
  /** Offset in the chunk log where this step's streamed chunks start. */
  chunkOffset: number;
  /** The conversation from message `from` on; the worker keeps (or queries) the earlier part. */
  conversation: ConversationRef;
  /** The run's tool naming; absent: by id (runs started before `tollgate-tool-keys`). */
  toolNaming?: 'key';
  /** The run's `activeTools`: the model is offered these tools only; absent: every tool. */
  activeTools?: string[];
}

export interface ModelStepOutput {
  /**
   * The step's text deltas, written out. Workers since `textDeltaLengths` send it only when the
   * deltas do not join to the text of `responseMessages`; histories recorded before carry it always.
   */
  textDeltas?: string[];
  /** Lengths of the step's text deltas (UTF-16 units), cut from the text of `responseMessages`. */
  textDeltaLengths?: number[];
  toolCalls: ModelToolCall[];
  /** Messages the step adds to the conversation (the assistant's turn). */
  responseMessages: JsonValue[];
  finishReason: FinishReason;
  usage: Usage;
}

export interface ExecuteToolInput {
  runId: string;
  agentId: string;
  call: ToolCallRef;
  requestContext: JsonObject;
  resumeData?: JsonValue;
  /** With `resumeData`: the payload of the `suspend()` this execution resumes from. */
  suspendPayload?: JsonValue;
  /** The run's tool naming; absent: by id. */
  toolNaming?: 'key';
  /**
   * Set for local executions: `<runId>:step-<n>:call-<i>`, the call's position, which a rerun
   * after a crash reaches again even when the model's rerun names the call differently.
   */
  idempotencyKey?: string;
  /** The tool definition the call's approval binds to (`ToolExecutionContext.approvedDefinition`). */
  approvedDefinition?: string;
  /**
   * The heartbeat details of the call's earlier attempts, carried over when a worker without the
   * agent refused an attempt and the call was scheduled again on the agent's queue
   * (`onAgentHost`): its checkpoint, and whether an attempt started `execute` unseen.
   */
  priorAttempt?: JsonValue;
}

export type ExecuteToolOutput =
  | { kind: 'result'; result: JsonValue }
  /** `code`: the stable code of what went wrong, where the activity knows one. */
  | { kind: 'error'; error: string; code?: string }
  /** `resumeSchema`: set when `suspend()` gave this suspension its own schema (JSON string). */
  | { kind: 'suspended'; suspendPayload: JsonValue; resumeSchema?: string }
  /** The tool changed since its gate (`DefinitionChanged`): nothing ran; re-gate with `note`. */
  | { kind: 'definition-changed'; note: string; definition: string };

export interface EvaluateGatesInput {
  runId: string;
  agentId: string;
  /**
   * `tool`: the tools' own predicates; `agent`: the agent's default policy; `request`: the run's
   * function; `named`: a policy registered on the worker under `policyName`.
   */
  source: 'tool' | 'agent' | 'request' | 'named';
  policyName?: string;
  calls: ToolCallRef[];
  requestContext: JsonObject;
  /** The run's tool naming; absent: by id. */
  toolNaming?: 'key';
}

export interface GateVerdict {
  toolCallId: string;
  gated: boolean;
  /** Why: a policy failed and the call was gated to be safe, or the policy gave its reason. */
  note?: string;
  /** `false`: no grant covers the call (`GateAnswer.grantable`). */
  grantable?: boolean;
  /** What the call will run, as the gate saw it (`GateAnswer.definition`). */
  definition?: string;
}
