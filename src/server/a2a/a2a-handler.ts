/**
 * One Tollgate agent as an A2A server (docs/a2a.md): the A2A SDK's request handler interface,
 * answered from the agent's runs. Nothing is stored here: a task is a run, read back from
 * Temporal on every request, and every answer to a waiting call is a decision sent through the
 * agent client in the caller's name, judged by the run like any other.
 */
import {
  TaskState,
  type AgentCard,
  type CancelTaskRequest,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
} from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { requireAgentApprover } from '../../common/agent-approver.js';
import { TollgateError } from '../../common/errors.js';
import type { Tollgate } from '../../runtime.js';
import type { AgentOutput } from '../../stream/agent-output.js';
import type { AgentStream } from '../../stream/agent-stream.js';
import { collectOutput } from '../../stream/agent-output.js';
import { logEnd, runStatus, type RunStatus } from '../../temporal-client/run-status.js';
import type { Caller } from '../auth.js';
import { cancelTask } from './a2a-cancel.js';
import { a2aErrors, a2aErrorsOf } from './a2a-errors.js';
import { listTasks } from './a2a-list.js';
import { readReply, textOf } from './a2a-reply.js';
import { subscription, taskEvent, untilSettled, type TaskFollower } from './a2a-stream.js';
import { checkContextId, newContextId, taskIdFor, taskOf } from './a2a-task.js';

/** Where the route puts the authenticated caller in the A2A call context. */
export const CALLER_STATE_KEY = 'tollgate.caller';

export class TollgateA2AHandler implements A2ARequestHandler {
  constructor(
    private readonly tollgate: Tollgate,
    private readonly agentId: string,
    private readonly card: () => Promise<AgentCard>,
    private readonly log: (error: unknown) => void,
  ) {}

  getAgentCard(): Promise<AgentCard> {
    return this.card();
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(new ExtendedAgentCardNotConfiguredError());
  }

  sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Task> {
    return a2aErrors(this.log, async () => {
      const caller = callerOf(context);
      const message = messageOf(params);
      if (message.taskId)
        return this.settled(caller, await collectOutput(await this.answer(caller, message)));
      const opened = await this.open(caller, message);
      if (!opened.stream) return taskOf(this.agentId, opened.seen);
      if (params.configuration?.returnImmediately === true) {
        opened.stream.recorded.catch(() => undefined);
        return working(this.agentId, opened.stream.runId);
      }
      return this.settled(caller, await collectOutput(opened.stream));
    });
  }

  /** The task at once, then its state changes until it ends or waits for input (a2a-stream.ts). */
  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const { caller, ...started } = await a2aErrors(this.log, async () => {
      const caller = callerOf(context);
      const message = messageOf(params);
      if (message.taskId) return { caller, stream: await this.answer(caller, message) };
      return { caller, ...(await this.open(caller, message)) };
    });
    if (!started.stream) {
      yield* this.subscribe(caller, started.seen.runId);
      return;
    }
    yield taskEvent(working(this.agentId, started.stream.runId));
    yield* a2aErrorsOf(
      this.log,
      untilSettled(this.follower(caller), started.stream, TaskState.TASK_STATE_WORKING),
    );
  }

  getTask(params: { id: string }, context: ServerCallContext): Promise<Task> {
    return a2aErrors(this.log, async () =>
      taskOf(this.agentId, await this.status(callerOf(context), params.id)),
    );
  }

  /** Cancels the task's run in the caller's name (a2a-cancel.ts). */
  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return a2aErrors(this.log, async () => {
      const caller = callerOf(context);
      const read = (runId: string) => this.status(caller, runId);
      return cancelTask(await this.tollgate.client(), this.agentId, caller, params.id, read);
    });
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return a2aErrors(this.log, async () => {
      const caller = callerOf(context);
      const read = (runId: string) => this.status(caller, runId);
      return listTasks(await this.tollgate.client(), this.agentId, caller.scope, params, read);
    });
  }

  createTaskPushNotificationConfig(): Promise<never> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  getTaskPushNotificationConfig(): Promise<never> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  listTaskPushNotificationConfigs(): Promise<never> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  deleteTaskPushNotificationConfig(): Promise<never> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  /** The task's current state, then what follows until it ends or waits for input again. */
  async *resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const caller = await a2aErrors(this.log, () => Promise.resolve(callerOf(context)));
    yield* this.subscribe(caller, params.id);
  }

  private subscribe(
    caller: Caller,
    runId: string,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const end = async () => logEnd(await this.tollgate.client(), this.agentId, caller.scope, runId);
    return a2aErrorsOf(this.log, subscription(this.follower(caller), runId, end));
  }

  private follower(caller: Caller): TaskFollower {
    return {
      agentId: this.agentId,
      status: (runId) => this.status(caller, runId),
      observe: (runId, offset) => this.agentOf(caller).observe({ runId, offset }),
    };
  }

  /**
   * A message without a task id: a new run (`stream`), or the run an earlier send of it started
   * (`seen`), which a retry finds instead of starting a second one.
   */
  private async open(
    caller: Caller,
    message: Message,
  ): Promise<{ stream: AgentStream; seen?: undefined } | { stream?: undefined; seen: RunStatus }> {
    const contextId = message.contextId || newContextId(caller.identity.id, message.messageId);
    checkContextId(contextId);
    const runId = taskIdFor(caller.identity.id, contextId, message.messageId);
    const text = textOf(message).trim();
    if (text === '') throw new RequestMalformedError('A message that opens a task needs text.');
    const seen = await this.existing(caller, runId);
    if (seen) return { seen };
    const requestContext = { a2a: { contextId, messageId: message.messageId } };
    try {
      return { stream: await this.agentOf(caller).stream(text, { runId, requestContext }) };
    } catch (error) {
      // The same message sent twice at once: the other send started the run.
      const started = await this.existing(caller, runId);
      if (started) return { seen: started };
      throw error;
    }
  }

  /** A message to a task: the answer to one of its waiting calls, and the run followed on. */
  private async answer(caller: Caller, message: Message): Promise<AgentStream> {
    const status = await this.status(caller, message.taskId);
    if (status.state !== 'running') {
      throw new UnsupportedOperationError(
        `Task ${message.taskId} is ${status.state}: a task that ended takes no more messages.`,
      );
    }
    if (status.pending.length === 0) {
      throw new TollgateError(
        'NO_PENDING_TOOL_CALL',
        `Task ${message.taskId} is working and waits for no input; read it again with GetTask.`,
      );
    }
    const reply = readReply(message, status.pending);
    const agent = this.agentOf(caller);
    const base = {
      runId: status.runId,
      toolCallId: reply.call.toolCallId,
      decidedBy: caller.identity,
    };
    if (reply.kind === 'resume') return agent.resumeStream(reply.resumeData, base);
    if (reply.kind === 'decline') return agent.declineToolCall({ ...base, ...reasonOf(reply) });
    // An agent approves only where a person named it; checked before anything is sent.
    if (caller.kind === 'agent') requireAgentApprover(reply.call, caller.identity);
    const fingerprint = reply.fingerprint ?? reply.call.fingerprint;
    return agent.approveToolCall({ ...base, ...reasonOf(reply), fingerprint });
  }

  /** The task once the run's stream ended: it finished, or it waits again. */
  private async settled(caller: Caller, output: AgentOutput): Promise<Task> {
    if (output.finishReason === 'suspended') {
      return taskOf(this.agentId, await this.status(caller, output.runId));
    }
    const failed = output.finishReason === 'error';
    const result = {
      finishReason: output.finishReason,
      text: output.error ?? output.text,
      steps: output.steps.length,
      usage: output.usage,
    };
    return taskOf(
      this.agentId,
      { runId: output.runId, state: failed ? 'failed' : 'completed', pending: [], result },
      output.error,
    );
  }

  /** The run's status, or undefined when there is no such run. */
  private existing(caller: Caller, runId: string): Promise<RunStatus | undefined> {
    return this.status(caller, runId).catch((error: unknown) => {
      if (error instanceof TollgateError && error.code === 'RUN_NOT_FOUND') return undefined;
      throw error;
    });
  }

  private async status(caller: Caller, runId: string): Promise<RunStatus> {
    return runStatus(await this.tollgate.client(), this.agentId, caller.scope, runId);
  }

  private agentOf(caller: Caller) {
    return this.tollgate.getAgent(this.agentId, { scope: caller.scope, identity: caller.identity });
  }
}

function reasonOf(reply: { reason?: string }): { reason?: string } {
  return reply.reason ? { reason: reply.reason } : {};
}

function callerOf(context: ServerCallContext): Caller {
  const caller = context.state.get(CALLER_STATE_KEY) as Caller | undefined;
  // The route always sets it; a handler mounted elsewhere without it serves nobody.
  if (!caller)
    throw new TollgateError(
      'FORBIDDEN',
      'This A2A call carries no Tollgate caller; send a bearer token.',
    );
  return caller;
}

function messageOf(params: SendMessageRequest): Message {
  const message = params.message;
  if (!message?.messageId) throw new RequestMalformedError('Send a message with a messageId.');
  return message;
}

function working(agentId: string, runId: string): Task {
  return taskOf(agentId, { runId, state: 'running', pending: [] });
}
