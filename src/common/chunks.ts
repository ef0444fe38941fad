import type { Reassignment } from './decision-types.js';
import type { BudgetAsk, BudgetMetric, SharedBudgetRef } from './budget.js';
import type { JsonObject, JsonValue } from './json.js';

/** Token counts, summed over steps where a run reports a total. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** Why a run or a stream stopped. `suspended`: the run waits for a decision. */
export type FinishReason =
  'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other' | 'suspended';

export interface ToolCallRef {
  toolCallId: string;
  /** The name the model called: the tool's key in the agent's `tools` (SPEC §1 "Tool names"). */
  toolName: string;
  args: JsonValue;
  /** The tool's `id`, for operators, when it differs from `toolName`. */
  toolId?: string;
}

/** A call's identifying fields, without whatever else the value carries. */
export function refOf(call: ToolCallRef): ToolCallRef {
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    args: call.args,
    ...(call.toolId !== undefined ? { toolId: call.toolId } : {}),
  };
}

/** How operators see a tool's name: `deleteRecord (id delete-record)` when key and id differ. */
export function toolLabel(call: { toolName: string; toolId?: string }): string {
  return call.toolId !== undefined ? `${call.toolName} (id ${call.toolId})` : call.toolName;
}

/** Payload of each chunk type (SPEC §4). */
export interface ChunkPayloads {
  /** `forkedFrom`: set on a fork (docs/fork.md): the run and step it started from. */
  start: {
    agentId: string;
    threadId?: string;
    resourceId?: string;
    forkedFrom?: { runId: string; step: number };
  };
  'step-start': { step: number };
  'step-finish': { step: number; finishReason: FinishReason; usage: Usage };
  'text-delta': { text: string };
  'tool-call': ToolCallRef;
  'tool-call-approval': ToolCallRef & {
    fingerprint: string;
    resumeSchema: string;
    expiresAt?: string;
    /** With a quorum: approvals needed, and those given so far. */
    quorum?: number;
    approvals?: Array<{ id: string; at: string }>;
    /** For a call inside a sub-agent: agent ids from this run's agent down to the call's. */
    path?: string[];
    /** Why the gate stopped the call, when its policy said (e.g. an MCP tool whose definition changed). */
    gateNote?: string;
    /**
     * Set once an escalation or a hand-off changed who decides (contract addition, issue 28):
     * the chunk is sent again with the approvers from then on, and the changes in order.
     */
    approvers?: string[];
    reassigned?: Reassignment[];
    /** Set on a budget approval only (docs/budgets.md), approved with an `amount`. */
    budget?: BudgetAsk;
  };
  'tool-call-suspended': ToolCallRef & {
    suspendPayload: JsonValue;
    resumeSchema: string;
    path?: string[];
  };
  /**
   * `originalArgs`: set when an approver edited the arguments; `args` are those that ran. `code`:
   * set when the call did not run and `result` only says why: `TOOL_CALL_DECLINED` (a decline)
   * or `APPROVAL_EXPIRED` (an expiry whose policy declines).
   */
  'tool-result': ToolCallRef & {
    result: JsonValue;
    originalArgs?: JsonValue;
    code?: 'TOOL_CALL_DECLINED' | 'APPROVAL_EXPIRED';
  };
  /** `code`: the error's stable code where Tollgate knows one (`docs/streams.md` lists them). */
  'tool-error': ToolCallRef & { error: string; code?: string };
  finish: { finishReason: FinishReason; usage: Usage };
  /**
   * `code`: the failure's stable code where Tollgate knows one (`RUN_FAILED` for a failure it
   * cannot name, `RUN_TERMINATED` and the like for a run closed from outside); `reason`: the
   * reason Temporal recorded.
   */
  error: { error: string; code?: string; reason?: string };
  /**
   * Not in SPEC §4's table and never in the log: only streams read in the worker's process show
   * live text before the log records it. This chunk takes back the `text` they showed live that
   * the log will not hold (the model step's attempt failed, or its retry said something else);
   * the log's own chunks follow.
   */
  'text-withdrawn': { text: string };
  /**
   * Not in SPEC §4's table (docs/budgets.md): the run has spent `used` of `metric`, past the
   * budget's `warnAt`. Logged once per metric per run, after the step that crossed it.
   */
  'budget-warning': {
    metric: BudgetMetric;
    used: number;
    warnAt: number;
    limit: number;
    /** Set when a shared budget warns: which counter; `used` is what all its runs spent. */
    shared?: SharedBudgetRef;
  };
}

export type ChunkType = keyof ChunkPayloads;

/** One event of a run, as streamed and as kept in the run's chunk log. */
export type Chunk = {
  [T in ChunkType]: { type: T; runId: string; from: 'AGENT'; payload: ChunkPayloads[T] };
}[ChunkType];

export type ChunkOf<T extends ChunkType> = Extract<Chunk, { type: T }>;

export function makeChunk<T extends ChunkType>(
  runId: string,
  type: T,
  payload: ChunkPayloads[T],
): ChunkOf<T> {
  return { type, runId, from: 'AGENT', payload } as ChunkOf<T>;
}

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/** JSON Schema of "no resume data expected", used where a tool declares no `resumeSchema`. */
export const EMPTY_OBJECT_SCHEMA = '{"type":"object","properties":{}}';

/** A chunk slice returned by the chunk-log query. */
export interface ChunkSlice {
  chunks: Chunk[];
  /** Offset of the first chunk in `chunks`. */
  offset: number;
  /** Length of the whole log when the slice was taken. */
  total: number;
  /** True once the run has closed: no chunk will follow the log's last one. */
  closed: boolean;
  /**
   * After a continue-as-new: the offset where this execution's part of the log begins. Earlier
   * chunks are answered by the execution before it, `previousExecution` (a Temporal run id).
   */
  base?: number;
  previousExecution?: string;
}

export type { JsonObject };
