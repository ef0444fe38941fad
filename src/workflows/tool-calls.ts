import { ActivityFailure, ApplicationFailure, condition } from '@temporalio/workflow';
import type { ToolCallRef } from '../common/chunks.js';
import type { JsonValue } from '../common/json.js';
import type {
  AgentManifest,
  ExecuteToolOutput,
  ModelToolCall,
  RunInput,
} from '../common/run-types.js';
import { executeTool } from './activity-calls.js';
import { runDelegation } from './delegation.js';
import type { Decision, RunState } from './run-state.js';

/** What the model and the stream see for a declined call when the decider gave no reason. */
export const DEFAULT_DECLINE_REASON = 'Tool call was not approved by the user';

/** An AI SDK tool-result part, JSON-safe. */
export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: { type: 'json' | 'text' | 'error-text'; value: JsonValue };
}

export interface ToolRunContext {
  state: RunState;
  manifest: AgentManifest;
  input: RunInput;
}

/**
 * Runs one step's tool calls in parallel. Gated calls wait for their own decision, in any order;
 * an approved call starts as soon as its decision arrives. Resolves with every result of the step.
 */
export async function runToolCalls(
  context: ToolRunContext,
  calls: ModelToolCall[],
  gated: Map<string, boolean>,
): Promise<ToolResultPart[]> {
  // Each call registers its wait or its execution synchronously, before any await, so the idle
  // check below sees the whole step.
  const results = calls.map((call) => runCall(context, call, gated.get(call.toolCallId) ?? true));
  context.state.announceIdle();
  return Promise.all(results);
}

async function runCall(
  context: ToolRunContext,
  call: ModelToolCall,
  gated: boolean,
): Promise<ToolResultPart> {
  const { state } = context;
  const tool = context.manifest.tools[call.toolName];
  if (!tool || call.invalidReason !== undefined) {
    const available = Object.keys(context.manifest.tools).join(', ') || 'none';
    return toolError(
      state,
      call,
      call.invalidReason ?? `Unknown tool "${call.toolName}". Available tools: ${available}.`,
    );
  }
  if (tool.delegate) {
    const outcome = await runDelegation(context, call, { ...tool, delegate: tool.delegate });
    return 'text' in outcome
      ? toolResult(state, call, outcome.text)
      : toolError(state, call, outcome.error);
  }
  if (gated) {
    state.wait(call, 'approve', { resumeSchema: tool.resumeSchema });
    const decision = await decisionFor(state, call.toolCallId);
    if (decision.kind === 'decline') {
      const reason = decision.reason ?? DEFAULT_DECLINE_REASON;
      state.emit('tool-result', { ...refOf(call), result: reason });
      return part(call, 'text', reason);
    }
  }
  let resumeData: JsonValue | undefined;
  for (;;) {
    state.toolStarted();
    const output = await execute(context, call, resumeData);
    if (output.kind === 'suspended') {
      state.wait(call, 'resume', {
        resumeSchema: tool.resumeSchema,
        suspendPayload: output.suspendPayload,
      });
      state.toolFinished();
      resumeData = (await decisionFor(state, call.toolCallId)).resumeData ?? null;
      continue;
    }
    const result =
      output.kind === 'result'
        ? toolResult(state, call, output.result)
        : toolError(state, call, output.error);
    state.toolFinished();
    return result;
  }
}

async function execute(
  context: ToolRunContext,
  call: ModelToolCall,
  resumeData: JsonValue | undefined,
): Promise<ExecuteToolOutput> {
  const tool = context.manifest.tools[call.toolName]!;
  try {
    return await executeTool(tool, {
      runId: context.state.runId,
      agentId: context.manifest.agentId,
      call: refOf(call),
      requestContext: context.input.requestContext,
      ...(resumeData !== undefined ? { resumeData } : {}),
    });
  } catch (error) {
    if (error instanceof ActivityFailure) return { kind: 'error', error: failureMessage(error) };
    throw error;
  }
}

async function decisionFor(state: RunState, toolCallId: string): Promise<Decision> {
  await condition(() => state.decisions.has(toolCallId));
  return state.takeDecision(toolCallId)!;
}

function toolResult(state: RunState, call: ModelToolCall, result: JsonValue): ToolResultPart {
  state.emit('tool-result', { ...refOf(call), result });
  return typeof result === 'string' ? part(call, 'text', result) : part(call, 'json', result);
}

function toolError(state: RunState, call: ModelToolCall, error: string): ToolResultPart {
  state.emit('tool-error', { ...refOf(call), error });
  return part(call, 'error-text', error);
}

function part(
  call: ToolCallRef,
  type: ToolResultPart['output']['type'],
  value: JsonValue,
): ToolResultPart {
  return {
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: { type, value },
  };
}

function refOf(call: ToolCallRef): ToolCallRef {
  return { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args };
}

/** The innermost message of an activity failure: what the tool threw, not Temporal's wrapping. */
export function failureMessage(error: ActivityFailure): string {
  const cause = error.cause;
  if (cause instanceof ApplicationFailure || cause instanceof Error) return cause.message;
  return error.message;
}
