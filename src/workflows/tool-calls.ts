import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  condition,
} from '@temporalio/workflow';
import { refOf, type ToolCallRef } from '../common/chunks.js';
import { TollgateError } from '../common/errors.js';
import { tollgateFailure } from '../common/failure.js';
import type { JsonValue } from '../common/json.js';
import type { ExecuteToolOutput, ModelToolCall, ToolManifest } from '../common/run-types.js';
import { executeTool } from './activity-calls.js';
import { toolCallFingerprint } from '../common/fingerprint.js';
import { awaitApproval } from './approval-wait.js';
import { runDelegation } from './delegation.js';
import type { GateOutcome } from './gates.js';
import type { RunState } from './run-state.js';
import type { ToolRunContext } from './tool-run-context.js';
import type { Decision } from './waiting-call.js';
import { namingOf } from './tool-naming.js';
import { auditRef } from './audit-log.js';
import {
  askPatch,
  currentStep,
  localExecuteTool,
  localOrHosted,
  runsLocally,
} from './local-execution.js';
import type { Grant } from '../common/grant-types.js';
import { grantsFor, useGrant } from './grant-use.js';

/** What the model and the stream see for a declined call when the decider gave no reason. */
export const DEFAULT_DECLINE_REASON = 'Tool call was not approved by the user';

/** An AI SDK tool-result part, JSON-safe. */
export type ToolResultPart = {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: { type: 'json' | 'text' | 'error-text'; value: JsonValue };
};

/**
 * Runs one step's tool calls in parallel. Gated calls wait for their own decision, in any order;
 * an approved call starts as soon as its decision arrives. Resolves with every result of the step.
 */
export async function runToolCalls(
  context: ToolRunContext,
  calls: ModelToolCall[],
  gates: Map<string, GateOutcome>,
): Promise<ToolResultPart[]> {
  const granted = await grantsFor(context, calls, gates);
  // Each call registers its wait or its execution synchronously, before any await, so the idle
  // check below sees the whole step.
  for (const call of calls) {
    const gate = gates.get(call.toolCallId) ?? { gated: true, source: 'missing' };
    context.state.audit.add({ type: 'gate', ...auditRef(call), ...gate });
  }
  const results = calls.map((call, index) => {
    const gate = gates.get(call.toolCallId);
    const grant = granted.get(call.toolCallId);
    return runCall(context, call, { gated: gate?.gated ?? true, note: gate?.note, grant }, index);
  });
  context.state.activity.announceIdle();
  return Promise.all(results);
}

async function runCall(
  context: ToolRunContext,
  call: ModelToolCall,
  gate: { gated: boolean; note: string | undefined; grant: Grant | undefined },
  index: number,
): Promise<ToolResultPart> {
  const { state } = context;
  const { gated, note: gateNote, grant } = gate;
  const tool = context.manifest.tools[call.toolName];
  if (call.invalidReason !== undefined)
    return toolError(state, call, { error: call.invalidReason, code: 'INVALID_TOOL_INPUT' });
  if (!tool) {
    const available = Object.keys(context.manifest.tools).join(', ') || 'none';
    const error = `Unknown tool "${call.toolName}". Available tools: ${available}.`;
    return toolError(state, call, { error, code: 'TOOL_NOT_FOUND' });
  }
  if (tool.delegate) {
    const outcome = await runDelegation(context, call, { ...tool, delegate: tool.delegate });
    return 'text' in outcome
      ? toolResult(state, call, outcome.text)
      : toolError(state, call, outcome);
  }
  let edited: ModelToolCall | undefined;
  if (gated && grant) {
    useGrant(state, call, grant);
  } else if (gated) {
    const outcome = await awaitApproval(context, call, tool, gateNote);
    if (outcome.kind === 'expired') {
      if (outcome.onTimeout === 'fail') throw expiredFailure(call);
      if (outcome.onTimeout === 'decline')
        return declined(context, call, expiredReason(call), 'APPROVAL_EXPIRED');
    } else if (outcome.decision.kind === 'decline') {
      const reason = outcome.decision.reason ?? DEFAULT_DECLINE_REASON;
      return declined(context, call, reason, 'TOOL_CALL_DECLINED');
    } else if (outcome.decision.args !== undefined) {
      const args = outcome.decision.args;
      edited = { ...call, args, fingerprint: toolCallFingerprint(call.toolName, args) };
    }
  }
  let resumed: Resumed | undefined;
  const local = runsLocally(tool, gated)
    ? { step: currentStep(state.log.chunks), index }
    : undefined;
  for (;;) {
    state.activity.toolStarted();
    const output = await execute(context, edited ?? call, resumed, local);
    if (output.kind === 'suspended') {
      state.wait(call, 'resume', {
        // A suspension may bring its own schema (an MCP server's elicitation does).
        resumeSchema: output.resumeSchema ?? tool.resumeSchema,
        suspendPayload: output.suspendPayload,
      });
      state.activity.toolFinished();
      const resumeData = (await decisionFor(state, call.toolCallId)).resumeData ?? null;
      resumed = { resumeData, suspendPayload: output.suspendPayload };
      continue;
    }
    const result =
      output.kind === 'result'
        ? edited
          ? editedResult(state, call, edited, output.result)
          : toolResult(state, call, output.result)
        : toolError(state, edited ?? call, output);
    state.activity.toolFinished();
    return result;
  }
}

/** The resume data of a suspended call, and the payload of the suspension it answers. */
interface Resumed {
  resumeData: JsonValue;
  suspendPayload: JsonValue;
}

async function execute(
  context: ToolRunContext,
  call: ModelToolCall,
  resumed: Resumed | undefined,
  local: { step: number; index: number } | undefined,
): Promise<ExecuteToolOutput> {
  const tool = context.manifest.tools[call.toolName]!;
  const input = {
    runId: context.state.runId,
    agentId: context.manifest.agentId,
    call: refOf(call),
    requestContext: context.input.requestContext,
    ...(resumed ?? {}),
    ...namingOf(context.manifest),
  };
  try {
    const queue = context.state.agentQueue;
    const hosted = () => executeTool(tool, input, queue);
    return await (local
      ? localOrHosted(() => localExecuteTool(tool, input, local), queue, hosted)
      : hosted());
  } catch (error) {
    if (error instanceof ActivityFailure) return { kind: 'error', ...toolFailure(error, tool) };
    throw error;
  }
}

/**
 * What the model and the stream see when a call's last attempt failed, with the code of the
 * failure: the tool's own Tollgate code, `TOOL_TIMED_OUT`, or `TOOL_FAILED` for anything it threw.
 * A timed-out attempt says how often `execute` may have started: each attempt may have run it.
 */
function toolFailure(error: ActivityFailure, tool: ToolManifest): ToolErrorOf {
  const cause = error.cause;
  if (!(cause instanceof TimeoutFailure)) {
    const code =
      cause instanceof ApplicationFailure ? TollgateError.codeOfFailureType(cause.type) : undefined;
    return { error: failureMessage(error), code: code ?? 'TOOL_FAILED' };
  }
  const how =
    cause.timeoutType === 'HEARTBEAT'
      ? `its worker stopped heartbeating${tool.heartbeatTimeoutMs !== undefined ? ` for ${tool.heartbeatTimeoutMs} ms` : ''} (it crashed or hung)`
      : `it ran past its ${tool.timeoutMs} ms limit`;
  const attempts = tool.retry.maximumAttempts;
  return {
    error: `Tool "${tool.name}" did not finish: ${how} on its last attempt; execute may have started up to ${attempts} time(s), its effects happen once only where it uses context.idempotencyKey.`,
    code: 'TOOL_TIMED_OUT',
  };
}

/**
 * Runs that record this patch end the stream's stretch when a decline (or an expiry that
 * declines) leaves the run only waiting on other calls, as a finished tool does: the `suspended`
 * finish and the waiting status. Asked only then, so other runs record no marker.
 */
export const DECLINE_ENDS_STRETCH_PATCH = 'tollgate-decline-ends-stretch';

function declined(
  context: ToolRunContext,
  call: ModelToolCall,
  reason: string,
  code: 'TOOL_CALL_DECLINED' | 'APPROVAL_EXPIRED',
): ToolResultPart {
  const { state } = context;
  state.log.emit('tool-result', { ...refOf(call), result: reason, code });
  if (state.activity.idle && askPatch(context.patches, DECLINE_ENDS_STRETCH_PATCH))
    state.activity.announceIdle();
  return part(call, 'text', reason);
}

/** The model is told it expired (SPEC §10: the word `expired` appears) and that nothing ran. */
function expiredReason(call: ModelToolCall): string {
  return `The approval of ${call.toolName} expired without a decision; the call was not executed (expired).`;
}

function expiredFailure(call: ModelToolCall): ApplicationFailure {
  return tollgateFailure(
    'APPROVAL_EXPIRED',
    `The approval of tool call ${call.toolCallId} (${call.toolName}) expired; its policy fails the run.`,
  );
}

/** A call approved with edited arguments: the stream shows both, and the model is told. */
function editedResult(
  state: RunState,
  original: ModelToolCall,
  edited: ModelToolCall,
  result: JsonValue,
): ToolResultPart {
  state.log.emit('tool-result', { ...refOf(edited), result, originalArgs: original.args });
  return part(original, 'json', {
    result,
    note: 'The approver edited the arguments before the call ran; it ran with editedArgs.',
    editedArgs: edited.args,
  });
}

async function decisionFor(state: RunState, toolCallId: string): Promise<Decision> {
  await condition(() => state.calls.hasDecision(toolCallId));
  return state.calls.takeDecision(toolCallId)!;
}

function toolResult(state: RunState, call: ModelToolCall, result: JsonValue): ToolResultPart {
  state.log.emit('tool-result', { ...refOf(call), result });
  return typeof result === 'string' ? part(call, 'text', result) : part(call, 'json', result);
}

/** A call's error and, where Tollgate knows one, its stable code. */
type ToolErrorOf = { error: string; code?: string };

function toolError(state: RunState, call: ModelToolCall, failure: ToolErrorOf): ToolResultPart {
  const { error, code } = failure;
  state.log.emit('tool-error', { ...refOf(call), error, ...(code !== undefined ? { code } : {}) });
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

/** The innermost message of an activity failure: what the tool threw, not Temporal's wrapping. */
export function failureMessage(error: ActivityFailure): string {
  const cause = error.cause;
  if (cause instanceof ApplicationFailure || cause instanceof Error) return cause.message;
  return error.message;
}
