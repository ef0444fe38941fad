import { ActivityFailure, condition } from '@temporalio/workflow';
import { notActiveMessage } from '../common/active-tools.js';
import { refOf } from '../common/chunks.js';
import type { JsonValue } from '../common/json.js';
import type { ExecuteToolOutput, ModelToolCall, ToolManifest } from '../common/run-types.js';
import { executeTool } from './step-work-calls.js';
import { redefinedCallFingerprint, toolCallFingerprint } from '../common/fingerprint.js';
import { awaitApproval } from './approval-wait.js';
import { runDelegation } from './delegation.js';
import type { GateOutcome } from './gates.js';
import type { RunState } from './run-state.js';
import type { ToolRunContext } from './tool-run-context.js';
import type { Decision } from './waiting-call.js';
import { namingOf } from './tool-naming.js';
import { auditRef } from './audit-log.js';
import {
  currentStep,
  localExecuteTool,
  localOrHosted,
  positionKey,
  runsLocally,
} from './local-execution.js';
import {
  DEFAULT_DECLINE_REASON,
  declined,
  editedResult,
  expiredFailure,
  expiredReason,
  toolError,
  toolFailure,
  toolResult,
  type ToolResultPart,
} from './tool-results.js';

import type { Grant } from '../common/grant-types.js';
import { grantsFor, useGrant } from './grant-use.js';
import { regatesOnChange } from './definition-regate.js';

/**
 * Runs one step's tool calls in parallel. Gated calls wait for their own decision, in any order;
 * an approved call starts as soon as its decision arrives. Resolves with every result of the step.
 * `ran`, by call index: what a stretch's execution of an ungated local call returned, taken as
 * the call's first execution (a `null` or a missing entry: the call runs here).
 */
export async function runToolCalls(
  context: ToolRunContext,
  calls: ModelToolCall[],
  gates: Map<string, GateOutcome>,
  ran: ReadonlyArray<ExecuteToolOutput | null> = [],
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
    if (gate?.notActive) {
      const error = notActiveMessage(call.toolName, context.input.activeTools ?? []);
      return Promise.resolve(toolError(context.state, call, { error, code: 'TOOL_NOT_ALLOWED' }));
    }
    const shown = { gated: gate?.gated ?? true, note: gate?.note, definition: gate?.definition };
    return runCall(context, call, { ...shown, grant }, index, ran[index] ?? undefined);
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
  ran: ExecuteToolOutput | undefined,
): Promise<ToolResultPart> {
  const { state } = context;
  const { gated, note: gateNote, grant } = gate;
  // What the call's approval binds to; a re-gate after the tool changed moves it.
  let approvedDefinition = gate.definition;
  const tool = context.manifest.tools[call.toolName];
  if (!tool || call.invalidReason !== undefined) {
    const available = Object.keys(context.manifest.tools).join(', ') || 'none';
    const error =
      call.invalidReason ?? `Unknown tool "${call.toolName}". Available tools: ${available}.`;
    return toolError(state, call, { error, code: tool ? 'INVALID_TOOL_INPUT' : 'TOOL_NOT_FOUND' });
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
  // Only an ungated local call can have run in a stretch.
  let stretched = local ? ran : undefined;
  for (;;) {
    state.activity.toolStarted();
    const output =
      stretched ?? (await execute(context, edited ?? call, { resumed, approvedDefinition }, local));
    stretched = undefined;
    if (output.kind === 'definition-changed') {
      if (!regatesOnChange(context, call, output)) {
        const result = toolError(state, call, { error: output.note, code: 'MCP_TOOL_DRIFT' });
        state.activity.toolFinished();
        return result;
      }
      // The approval was for what the approver saw: a changed tool waits for a new one. The call
      // shows as waiting before approvalOf's first await, so the run is seen to wait, not end.
      const shown = edited ?? call;
      const fingerprint = redefinedCallFingerprint(shown.toolName, shown.args, output.definition);
      const waiting = approvalOf(context, { ...shown, fingerprint }, tool, output);
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
        : toolError(state, edited ?? call, output);
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
  const outcome = await awaitApproval(context, call, tool, gate);
  if (outcome.kind === 'expired') {
    if (outcome.onTimeout === 'fail') throw expiredFailure(call);
    if (outcome.onTimeout === 'decline')
      return { declined: declined(context, call, expiredReason(call), 'APPROVAL_EXPIRED') };
    return {};
  }
  if (outcome.decision.kind === 'decline') {
    const reason = outcome.decision.reason ?? DEFAULT_DECLINE_REASON;
    return { declined: declined(context, call, reason, 'TOOL_CALL_DECLINED') };
  }
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
    const { state } = context;
    // Done where the agent is hosted instead, a local call keeps its position's key.
    const keyed = local ? { ...input, idempotencyKey: positionKey(input.runId, local) } : input;
    const hosted = () =>
      executeTool(tool, keyed, { agentQueue: state.agentQueue, hereFirst: false });
    return await (local
      ? localOrHosted(() => localExecuteTool(tool, input, local), state.agentQueue, hosted)
      : executeTool(tool, input, state));
  } catch (error) {
    if (error instanceof ActivityFailure) return { kind: 'error', ...toolFailure(error, tool) };
    throw error;
  }
}

async function decisionFor(state: RunState, toolCallId: string): Promise<Decision> {
  await condition(() => state.calls.hasDecision(toolCallId));
  return state.calls.takeDecision(toolCallId)!;
}
