import {
  ChildWorkflowFailure,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  ParentClosePolicy,
  setHandler,
} from '@temporalio/workflow';
import type { TollgateErrorCode } from '../common/errors.js';
import type { JsonValue } from '../common/json.js';
import type {
  ChildStatus,
  DecisionInput,
  DecisionKind,
  ModelToolCall,
  RunInput,
  RunResult,
  ToolManifest,
} from '../common/run-types.js';
import { SA_KEYS } from '../common/search-attribute-keys.js';
import { childStatusSignal, decisionSignals } from '../common/messages.js';
import { AGENT_RUN_WORKFLOW } from '../common/wire.js';
import type { RunState } from './run-state.js';
import type { Decision, WaitingCall } from './waiting-call.js';
import { oneMarkerMemo, recordsOneMarker } from './patch-markers.js';

/** The run id of the sub-agent run that a delegation call starts. */
export function childRunId(parentRunId: string, toolCallId: string): string {
  return `${parentRunId}/${toolCallId}`;
}

export interface DelegationContext {
  state: RunState;
  input: RunInput;
}

/**
 * Runs a sub-agent for an `agent-<key>` call, as a child workflow of this run; its final text is
 * the call's result. Cancelling this run cancels the child.
 */
export async function runDelegation(
  context: DelegationContext,
  call: ModelToolCall,
  tool: ToolManifest & { delegate: { agentId: string } },
): Promise<{ text: string } | { error: string; code: TollgateErrorCode }> {
  const { state, input } = context;
  const message = (call.args as { message?: unknown } | null)?.message;
  if (typeof message !== 'string' || message === '') {
    return {
      error: `Tool "${call.toolName}" takes { message: string }: the task for the sub-agent.`,
      code: 'INVALID_TOOL_INPUT',
    };
  }
  const agentId = tool.delegate.agentId;
  const childInput: RunInput = {
    agentId,
    messages: [{ role: 'user', content: message }],
    requestPolicy: input.requestPolicy,
    requestContext: input.requestContext,
    // The request's rules, its requester and its override hold all the way down the tree.
    ...(input.approvalRules ? { approvalRules: input.approvalRules } : {}),
    ...(input.requester !== undefined ? { requester: input.requester } : {}),
    ...(input.approvalOverride ? { approvalOverride: input.approvalOverride } : {}),
    parent: {
      runId: state.runId,
      toolCallId: call.toolCallId,
      rootRunId: input.parent?.rootRunId ?? state.runId,
    },
    // Not a command's shape: a parent replayed from a history without it starts the same child.
    ...(recordsOneMarker() ? { describeHere: true as const } : {}),
  };
  state.children.started(call.toolCallId, agentId);
  try {
    const result = await executeChild<(input: RunInput) => Promise<RunResult>>(AGENT_RUN_WORKFLOW, {
      workflowId: childRunId(state.runId, call.toolCallId),
      args: [childInput],
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      staticSummary: `${agentId}: ${message.length > 80 ? `${message.slice(0, 77)}...` : message}`,
      typedSearchAttributes: [
        { key: SA_KEYS.agentId, value: agentId },
        { key: SA_KEYS.status, value: 'running' },
      ],
      ...oneMarkerMemo(),
    });
    return { text: result.text };
  } catch (error) {
    if (isCancellation(error)) {
      state.children.finished(call.toolCallId, 'Run was cancelled before a decision');
      throw error;
    }
    if (error instanceof ChildWorkflowFailure) {
      const why = error.cause?.message || error.message;
      return { error: `Sub-agent "${agentId}" failed: ${why}`, code: 'SUB_AGENT_FAILED' };
    }
    throw error;
  } finally {
    state.children.finished(call.toolCallId, 'The sub-agent run ended before a decision');
  }
}

/** Mirrors what the run's children report (SPEC §7). */
export function installChildStatusHandler(state: RunState): void {
  setHandler(childStatusSignal, (status) => state.children.mirror(status));
}

/** Makes a sub-agent's run report what it waits on to its parent, whenever that changes. */
export function reportToParent(state: RunState, input: RunInput): void {
  const parent = input.parent;
  if (!parent) return;
  const handle = getExternalWorkflowHandle(parent.runId);
  // Versions go on across continue-as-new: the parent ignores reports older than its last.
  state.status.parentReports = input.continued?.parentReports ?? 0;
  state.status.reportToParent = ({ idle, waiting }) => {
    const status: ChildStatus = {
      toolCallId: parent.toolCallId,
      version: ++state.status.parentReports,
      idle,
      waiting: waiting.map((call) => (call.path ? call : { ...call, path: [state.agentId] })),
    };
    handle.signal(childStatusSignal, status).catch((error: unknown) => {
      // The parent is gone (cancelled or finished): nobody is left to show the calls to.
      log.warn('Could not report to the parent run', {
        parent: parent.runId,
        error: String(error),
      });
    });
  };
}

/** Passes an accepted decision on a mirrored call down to the child run that owns the call. */
export async function forwardDecision(
  state: RunState,
  call: WaitingCall,
  kind: DecisionKind,
  decision: Decision,
): Promise<void> {
  if (!call.route) return;
  const input: DecisionInput = {
    toolCallId: call.route.innerId,
    fingerprint: call.fingerprint,
    ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
    ...(decision.decidedBy !== undefined ? { decidedBy: decision.decidedBy } : {}),
    ...(decision.resumeData !== undefined ? { resumeData: decision.resumeData as JsonValue } : {}),
  };
  await getExternalWorkflowHandle(childRunId(state.runId, call.route.child)).signal(
    decisionSignals[kind],
    input,
  );
}
