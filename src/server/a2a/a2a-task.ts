/**
 * A Tollgate run as an A2A task (docs/a2a.md). The task is the run: its id is the run id, its
 * state is read from the run, and its context id is carried inside the run id, so nothing but
 * Temporal holds a task and a restarted server answers the same.
 */
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import { createHash } from 'node:crypto';
import { TollgateError } from '../../common/errors.js';
import type { JsonValue } from '../../common/json.js';
import type { PendingToolCall } from '../../common/run-types.js';
import type { RunStatus } from '../../temporal-client/run-status.js';
import { dataPart, messageOf, textPart } from '../../a2a/a2a-parts.js';

export const RUN_PREFIX = 'a2a.';
/** Context ids Tollgate can carry inside a run id (whose limit is 200 such characters). */
const CONTEXT_ID = /^[\w-]{1,100}$/;

/**
 * The run id of the task a new message opens: the context, then a digest of who sent which
 * message, so the same message sent again (a retry after a lost answer) finds the same run.
 */
export function taskIdFor(callerId: string, contextId: string, messageId: string): string {
  const digest = createHash('sha256').update(`${callerId}\n${contextId}\n${messageId}`);
  return `${RUN_PREFIX}${contextId}.${digest.digest('hex').slice(0, 32)}`;
}

/** A new context id, derived from the opening message so a retry derives the same one. */
export function newContextId(callerId: string, messageId: string): string {
  const digest = createHash('sha256').update(`context\n${callerId}\n${messageId}`);
  return `ctx-${digest.digest('hex').slice(0, 32)}`;
}

/** Refuses a context id that cannot be carried inside a run id. */
export function checkContextId(contextId: string): void {
  if (CONTEXT_ID.test(contextId)) return;
  throw new TollgateError(
    'INVALID_A2A_MESSAGE',
    `contextId ${JSON.stringify(contextId.slice(0, 120))} is not one Tollgate can keep: use 1-100 letters, digits, '_' or '-', or leave it out to get a new one.`,
  );
}

/** The context id of a task, read back from its id; the run id itself for other runs. */
export function contextIdOf(taskId: string): string {
  if (!taskId.startsWith(RUN_PREFIX)) return taskId;
  const rest = taskId.slice(RUN_PREFIX.length);
  return rest.slice(0, rest.lastIndexOf('.'));
}

/** A run as an A2A task. */
export function taskOf(agentId: string, status: RunStatus, error?: string): Task {
  const { runId } = status;
  const contextId = contextIdOf(runId);
  const base = { id: runId, contextId, history: [], metadata: { tollgate: { agentId, runId } } };
  const say = (text: string, data?: JsonValue) => agentMessage(runId, contextId, text, data);
  const at = new Date().toISOString();
  if (status.state === 'running' && status.pending.length > 0) {
    const { text, data } = waitingMessage(status.pending);
    const message = say(text, data);
    return {
      ...base,
      artifacts: [],
      status: { state: TaskState.TASK_STATE_INPUT_REQUIRED, message, timestamp: at },
    };
  }
  if (status.state === 'running') {
    return {
      ...base,
      artifacts: [],
      status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: at },
    };
  }
  if (status.state === 'completed' && status.result?.finishReason !== 'error') {
    const text = status.result?.text ?? '';
    const artifacts = [
      {
        artifactId: `${runId}.text`,
        name: 'text',
        description: 'The run\u2019s final text.',
        parts: [textPart(text)],
        metadata: undefined,
        extensions: [],
      },
    ];
    return {
      ...base,
      artifacts,
      status: { state: TaskState.TASK_STATE_COMPLETED, message: say(text), timestamp: at },
    };
  }
  const state =
    status.state === 'cancelled' ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED;
  const message = say(
    error ?? `The run ended: ${status.state === 'completed' ? 'error' : status.state}.`,
  );
  return { ...base, artifacts: [], status: { state, message, timestamp: at } };
}

/** What an `input-required` status says: the waiting calls, in words and as data. */
function waitingMessage(pending: PendingToolCall[]): { text: string; data: JsonValue } {
  const lines = pending.map((call) =>
    call.requiresApproval
      ? `Approval needed: ${call.toolName}(${JSON.stringify(call.args)}) [${call.toolCallId}]. Reply "approve" or "decline".`
      : `Input needed by ${call.toolName} [${call.toolCallId}]: ${JSON.stringify(call.suspendPayload ?? null)}. Reply with a data part matching its resumeSchema.`,
  );
  const waiting = pending.map((call) => ({
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    args: call.args,
    kind: call.requiresApproval ? 'approval' : 'input',
    fingerprint: call.fingerprint,
    ...(call.suspendPayload !== undefined ? { suspendPayload: call.suspendPayload } : {}),
    ...(call.requiresApproval ? {} : { resumeSchema: JSON.parse(call.resumeSchema) as JsonValue }),
    ...(call.approvers ? { approvers: call.approvers } : {}),
    ...(call.expiresAt ? { expiresAt: call.expiresAt } : {}),
  }));
  return { text: lines.join('\n'), data: { waiting } };
}

function agentMessage(taskId: string, contextId: string, text: string, data?: JsonValue): Message {
  const parts = data === undefined ? [textPart(text)] : [textPart(text), dataPart(data)];
  const messageId = `${taskId}.${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  return messageOf('agent', { messageId, taskId, contextId }, parts);
}
