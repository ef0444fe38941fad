import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { refOf } from '../common/chunks.js';
import {
  errorPart,
  resultPart,
  toolResultPart,
  type ToolResultPart,
} from '../common/tool-result-part.js';
import { TollgateError } from '../common/errors.js';
import { tollgateFailure } from '../common/failure.js';
import type { JsonValue } from '../common/json.js';
import type { ModelToolCall, ToolManifest } from '../common/run-types.js';
import { askPatch } from './local-execution.js';
import type { RunState } from './run-state.js';
import type { ToolRunContext } from './tool-run-context.js';
import { DECLINE_ENDS_STRETCH_PATCH } from './patch-ids.js';

/**
 * What a tool call ends with, as the stream shows it (its chunk, with a code where one is known)
 * and as the model is told (an AI SDK tool-result part).
 */
/** What the model and the stream see for a declined call when the decider gave no reason. */
export const DEFAULT_DECLINE_REASON = 'Tool call was not approved by the user';

export type { ToolResultPart };

/**
 * What the model and the stream see when a call's last attempt failed, with the code of the
 * failure: the tool's own Tollgate code, `TOOL_TIMED_OUT`, or `TOOL_FAILED` for anything it threw.
 * A timed-out attempt says how often `execute` may have started: each attempt may have run it.
 */
export function toolFailure(error: ActivityFailure, tool: ToolManifest): ToolErrorOf {
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

export function declined(
  context: ToolRunContext,
  call: ModelToolCall,
  reason: string,
  code: 'TOOL_CALL_DECLINED' | 'APPROVAL_EXPIRED',
): ToolResultPart {
  const { state } = context;
  state.log.emit('tool-result', { ...refOf(call), result: reason, code });
  if (state.activity.idle && askPatch(context.patches, DECLINE_ENDS_STRETCH_PATCH))
    state.activity.announceIdle();
  return toolResultPart(call, 'text', reason);
}

/** The model is told it expired (SPEC §10: the word `expired` appears) and that nothing ran. */
export function expiredReason(call: ModelToolCall): string {
  return `The approval of ${call.toolName} expired without a decision; the call was not executed (expired).`;
}

export function expiredFailure(call: ModelToolCall): ApplicationFailure {
  return tollgateFailure(
    'APPROVAL_EXPIRED',
    `The approval of tool call ${call.toolCallId} (${call.toolName}) expired; its policy fails the run.`,
  );
}

/** A call approved with edited arguments: the stream shows both, and the model is told. */
export function editedResult(
  state: RunState,
  original: ModelToolCall,
  edited: ModelToolCall,
  result: JsonValue,
): ToolResultPart {
  state.log.emit('tool-result', { ...refOf(edited), result, originalArgs: original.args });
  return toolResultPart(original, 'json', {
    result,
    note: 'The approver edited the arguments before the call ran; it ran with editedArgs.',
    editedArgs: edited.args,
  });
}

export function toolResult(
  state: RunState,
  call: ModelToolCall,
  result: JsonValue,
): ToolResultPart {
  state.log.emit('tool-result', { ...refOf(call), result });
  return resultPart(call, result);
}

/** A call's error and, where Tollgate knows one, its stable code. */
export type ToolErrorOf = { error: string; code?: string };

export function toolError(
  state: RunState,
  call: ModelToolCall,
  failure: ToolErrorOf,
): ToolResultPart {
  const { error, code } = failure;
  state.log.emit('tool-error', { ...refOf(call), error, ...(code !== undefined ? { code } : {}) });
  return errorPart(call, error);
}

/** The innermost message of an activity failure: what the tool threw, not Temporal's wrapping. */
export function failureMessage(error: ActivityFailure): string {
  const cause = error.cause;
  if (cause instanceof ApplicationFailure || cause instanceof Error) return cause.message;
  return error.message;
}
