import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  condition,
} from '@temporalio/workflow';
import { refOf, type ToolCallRef } from '../common/chunks.js';
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
import { currentStep, localExecuteTool, runsLocally } from './local-execution.js';
import type { Grant } from '../common/grant-types.js';
import { grantsFor, useGrant } from './grant-use.js';
import { regatesOnChange } from './definition-regate.js';

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
    const shown = { gated: gate?.gated ?? true, note: gate?.note, definition: gate?.definition };
    return runCall(context, call, { ...shown, grant }, index);
  });
  context.state.activity.announceIdle();
  return Promise.all(results);
}

async function runCall(
  context: ToolRunContext,
  call: ModelToolCall,
  gate: {
    gated: boolean;
    note: string | undefined;
    definition: string | undefined;
    grant: Grant | undefined;
  },
  index: number,
): Promise<ToolResultPart> {
  const { state } = context;
  const { gated, note: gateNote, grant } = gate;
  // What the call's approval binds to; a re-gate after the tool changed moves it.
  let approvedDefinition = gate.definition;
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
  let edited: ModelToolCall | undefined;
  if (gated && grant) {
    useGrant(state, call, grant);
  } else if (gated) {
    const approval = await approvalOf(context, call, tool, {
      note: gateNote,
      definition: approvedDefinition,
    });
    if ('declined' in approval) return approval.declined;
    edited = approval.edited;
  }
  let resumed: Resumed | undefined;
  const local = runsLocally(tool, gated)
    ? { step: currentStep(state.log.chunks), index }
    : undefined;
  for (;;) {
    state.activity.toolStarted();
    const output = await execute(context, edited ?? call, { resumed, approvedDefinition }, local);
    if (output.kind === 'definition-changed') {
      if (!regatesOnChange(state, call, output)) {
        const result = toolError(state, call, output.note);
        state.activity.toolFinished();
        return result;
      }
      // The approval was for what the approver saw: a changed tool waits for a new one. The call
      // shows as waiting before approvalOf's first await, so the run is seen to wait, not end.
      const waiting = approvalOf(context, edited ?? call, tool, output);
      state.activity.toolFinished();
      const approval = await waiting;
      if ('declined' in approval) return approval.declined;
      edited = approval.edited ?? edited;
      approvedDefinition = output.definition;
      continue;
    }
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
        : toolError(state, edited ?? call, output.error);
    state.activity.toolFinished();
    return result;
  }
}

/**
 * Waits for a gated call's decision: `declined` is what the call ends with (declined, or expired
 * with `onTimeout: 'decline'`); otherwise it runs, with the approver's `edited` arguments if any.
 */
async function approvalOf(
  context: ToolRunContext,
  call: ModelToolCall,
  tool: ToolManifest,
  gate: { note?: string | undefined; definition?: string | undefined },
): Promise<{ declined: ToolResultPart } | { edited?: ModelToolCall }> {
  const { state } = context;
  const outcome = await awaitApproval(context, call, tool, gate);
  if (outcome.kind === 'expired') {
    if (outcome.onTimeout === 'fail') throw expiredFailure(call);
    if (outcome.onTimeout === 'decline')
      return { declined: declined(state, call, expiredReason(call)) };
    return {};
  }
  if (outcome.decision.kind === 'decline')
    return { declined: declined(state, call, outcome.decision.reason ?? DEFAULT_DECLINE_REASON) };
  const args = outcome.decision.args;
  if (args === undefined) return {};
  return { edited: { ...call, args, fingerprint: toolCallFingerprint(call.toolName, args) } };
}

/** The resume data of a suspended call, and the payload of the suspension it answers. */
interface Resumed {
  resumeData: JsonValue;
  suspendPayload: JsonValue;
}

async function execute(
  context: ToolRunContext,
  call: ModelToolCall,
  bound: { resumed: Resumed | undefined; approvedDefinition: string | undefined },
  local: { step: number; index: number } | undefined,
): Promise<ExecuteToolOutput> {
  const tool = context.manifest.tools[call.toolName]!;
  const { resumed, approvedDefinition } = bound;
  const input = {
    runId: context.state.runId,
    agentId: context.manifest.agentId,
    call: refOf(call),
    requestContext: context.input.requestContext,
    ...(resumed ?? {}),
    ...(approvedDefinition !== undefined ? { approvedDefinition } : {}),
    ...namingOf(context.manifest),
  };
  try {
    return await (local ? localExecuteTool(tool, input, local) : executeTool(tool, input));
  } catch (error) {
    if (error instanceof ActivityFailure)
      return { kind: 'error', error: toolFailureMessage(error, tool) };
    throw error;
  }
}

/**
 * What the model and the stream see when a call's last attempt failed. A timed-out attempt says
 * how often `execute` may have started: each attempt may have run it, up to the end.
 */
function toolFailureMessage(error: ActivityFailure, tool: ToolManifest): string {
  const cause = error.cause;
  if (!(cause instanceof TimeoutFailure)) return failureMessage(error);
  const how =
    cause.timeoutType === 'HEARTBEAT'
      ? `its worker stopped heartbeating${tool.heartbeatTimeoutMs !== undefined ? ` for ${tool.heartbeatTimeoutMs} ms` : ''} (it crashed or hung)`
      : `it ran past its ${tool.timeoutMs} ms limit`;
  const attempts = tool.retry.maximumAttempts;
  return `Tool "${tool.name}" did not finish: ${how} on its last attempt; execute may have started up to ${attempts} time(s), its effects happen once only where it uses context.idempotencyKey.`;
}

function declined(state: RunState, call: ModelToolCall, reason: string): ToolResultPart {
  state.log.emit('tool-result', { ...refOf(call), result: reason });
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

function toolError(state: RunState, call: ModelToolCall, error: string): ToolResultPart {
  state.log.emit('tool-error', { ...refOf(call), error });
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
