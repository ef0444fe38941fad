/**
 * `a2aTool()`: a Tollgate tool that sends a message to a remote A2A agent (docs/a2a.md). The
 * remote task's `input-required` becomes a durable suspension of the call: the run waits for
 * resume data as long as it takes, and the data is sent to the remote task as its reply.
 */
import { TaskState, type Task } from '@a2a-js/sdk';
import { z } from 'zod';
import { TollgateError } from '../common/errors.js';
import type { JsonValue } from '../common/json.js';
import { sha256Hex } from '../common/sha256.js';
import type { ApprovalPolicy } from '../definitions/approval-policy.js';
import {
  createTool,
  type SuspendSignal,
  type Tool,
  type ToolExecutionContext,
  type ToolRetryOptions,
} from '../definitions/create-tool.js';
import { A2AConnection, type A2AHeaders } from './a2a-connection.js';
import { contentOf, dataPart, messageOf, textPart } from './a2a-parts.js';

/** Options of `a2aTool()`. */
export interface A2AToolOptions {
  /** The tool's id (1-64 letters, digits, '_' or '-'). */
  id: string;
  /** Base URL of the remote agent: its card is read from `<url>/.well-known/agent-card.json`. */
  url: string;
  /** What the model is told the tool does. Default: "Sends a message to the A2A agent at <url>." */
  description?: string;
  /** Headers of every request to the agent (e.g. `Authorization`), or a function giving them. */
  headers?: A2AHeaders;
  /** As in `createTool`: gate the call before anything is sent. Default: not gated. */
  requireApproval?: boolean;
  /** As in `createTool`: who approves, timeouts, escalation. */
  approval?: ApprovalPolicy;
  /** While the remote task works, how often it is read again, ms. Default 1000. */
  pollIntervalMs?: number;
  /** One attempt's limit (the send and the wait until the task settles), ms. Default 300000. */
  timeoutMs?: number;
  /** Attempts after a network failure; the message is not sent twice (docs/a2a.md). Default 3. */
  retry?: ToolRetryOptions;
  /** The fetch used for the card and the calls. Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/** The `suspendPayload` of a call whose remote task asks for input. */
export interface A2AInputRequired {
  kind: 'a2a-input-required';
  /** The agent's URL, as given to `a2aTool`. */
  agent: string;
  taskId: string;
  contextId: string;
  /** 0 for the first question of the task, 1 for the next, ... */
  round: number;
  /** The remote agent's question: the text of its status message. */
  question: string;
  /** The data parts of its status message. */
  data: JsonValue[];
}

/** The resume data of a suspended call: the reply sent to the remote task. */
export interface A2AReplyData {
  text?: string;
  data?: Record<string, unknown>;
}

/** What the tool returns once the remote task completed (or the agent answered directly). */
export interface A2AToolResult {
  /** Absent when the agent answered with a message instead of a task. */
  taskId?: string;
  contextId: string;
  /** The text of the task's artifacts and status message (or of the answer). */
  text: string;
  /** Their data parts. */
  data: JsonValue[];
}

const input = z.object({
  message: z.string().min(1).describe('The message to send to the agent.'),
});
const reply = z.object({
  text: z.string().min(1).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

/** Where an attempt left the remote task, kept as the call's checkpoint. */
interface Sent {
  taskId: string;
  round: number;
}

/** A tool whose call sends `{ message }` to the A2A agent at `options.url` (docs/a2a.md). */
export function a2aTool(
  options: A2AToolOptions,
): Tool<{ message: string }, A2AToolResult, A2AInputRequired, A2AReplyData> {
  const connection = new A2AConnection(options);
  const poll = options.pollIntervalMs ?? 1000;
  return createTool({
    id: options.id,
    description: options.description ?? `Sends a message to the A2A agent at ${options.url}.`,
    inputSchema: input,
    suspendSchema: z.custom<A2AInputRequired>(),
    resumeSchema: reply,
    ...(options.requireApproval !== undefined ? { requireApproval: options.requireApproval } : {}),
    ...(options.approval ? { approval: options.approval } : {}),
    timeoutMs: options.timeoutMs ?? 300_000,
    retry: options.retry ?? { maximumAttempts: 3 },
    execute: async ({ message }, context) => {
      const asked = context.agent.suspendPayload;
      const answer = context.agent.resumeData;
      if (asked && !answer?.text && !answer?.data) return context.agent.suspend(asked);
      const round = asked ? asked.round + 1 : 0;
      const sent = context.lastCheckpoint as Sent | undefined;
      let task: Task | A2AToolResult;
      if (sent?.round === round) {
        task = await connection.task(sent.taskId);
      } else {
        task = await send(connection, context, message, asked, answer);
        if ('status' in task) context.checkpoint({ taskId: task.id, round } satisfies Sent);
      }
      if (!('status' in task)) return task;
      task = await connection.settle(task, poll, context.abortSignal);
      return outcome(options.url, task, round, context);
    },
  });
}

/** The attempt's message: the opening one, or the reply to the question `asked`. */
async function send(
  connection: A2AConnection,
  context: ToolExecutionContext<A2AInputRequired, A2AReplyData>,
  message: string,
  asked: A2AInputRequired | undefined,
  answer: A2AReplyData | undefined,
): Promise<Task | A2AToolResult> {
  const round = asked ? asked.round + 1 : 0;
  // The same id on every attempt of this round: a server that keeps message ids sees a resend.
  const messageId = `tollgate-${sha256Hex(`${context.idempotencyKey}:${round}`).slice(0, 32)}`;
  if (!asked) {
    const opening = messageOf('user', { messageId, taskId: '', contextId: '' }, [
      textPart(message),
    ]);
    const answered = await connection.send(opening);
    if ('status' in answered) return answered;
    return { contextId: answered.contextId, ...contentOf(answered.parts) };
  }
  const parts = [
    ...(answer?.text ? [textPart(answer.text)] : []),
    ...(answer?.data ? [dataPart(answer.data as JsonValue)] : []),
  ];
  const ids = { messageId, taskId: asked.taskId, contextId: asked.contextId };
  try {
    const answered = await connection.send(messageOf('user', ids, parts));
    if ('status' in answered) return answered;
    return { taskId: asked.taskId, contextId: answered.contextId, ...contentOf(answered.parts) };
  } catch (error) {
    // A retry whose earlier attempt's reply arrived but was not checkpointed: the remote task
    // refuses a second reply; read where it stands instead of failing the call.
    if (context.attempt > 1 && !(error instanceof TypeError)) return connection.task(asked.taskId);
    throw error;
  }
}

async function outcome(
  url: string,
  task: Task,
  round: number,
  context: ToolExecutionContext<A2AInputRequired, A2AReplyData>,
): Promise<A2AToolResult | SuspendSignal> {
  const status = contentOf(task.status?.message?.parts ?? []);
  const state = task.status?.state;
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED) {
    const asked: A2AInputRequired = {
      kind: 'a2a-input-required',
      agent: url,
      taskId: task.id,
      contextId: task.contextId,
      round,
      question: status.text,
      data: status.data,
    };
    return context.agent.suspend(asked);
  }
  if (state === TaskState.TASK_STATE_COMPLETED) {
    const artifacts = contentOf(task.artifacts.flatMap((a) => a.parts));
    const text = [artifacts.text, status.text].filter((t) => t !== '').join('\n');
    return {
      taskId: task.id,
      contextId: task.contextId,
      text,
      data: [...artifacts.data, ...status.data],
    };
  }
  const name = (TaskState[state ?? TaskState.TASK_STATE_UNSPECIFIED] ?? String(state))
    .replace('TASK_STATE_', '')
    .toLowerCase()
    .replace('_', '-');
  throw new TollgateError(
    'A2A_TASK_FAILED',
    `The A2A agent at ${url} ended task ${task.id} as ${name}${status.text ? ` (${status.text})` : ''}; read its answer and call again, or ask a person.`,
  );
}
