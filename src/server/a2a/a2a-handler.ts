/**
 * One Tollgate agent as an A2A server (docs/a2a.md): the A2A SDK's request handler interface,
 * answered from the agent's runs. Nothing is stored here: a task is a run, read back from
 * Temporal on every request, and every answer to a waiting call is a decision sent through the
 * agent client in the caller's name, judged by the run like any other.
 */
import type { AgentCard, Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { requireAgentApprover } from '../../common/agent-approver.js';
import { TollgateError } from '../../common/errors.js';
import type { Tollgate } from '../../runtime.js';
import type { AgentOutput } from '../../stream/agent-output.js';
import type { AgentStream } from '../../stream/agent-stream.js';
import { collectOutput } from '../../stream/agent-output.js';
import { runStatus, type RunStatus } from '../../temporal-client/run-status.js';
import type { Caller } from '../auth.js';
import { a2aErrors } from './a2a-errors.js';
import { readReply, textOf } from './a2a-reply.js';
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
      const message = params.message;
      if (!message?.messageId) throw new RequestMalformedError('Send a message with a messageId.');
      if (message.taskId) return this.answer(caller, message);
      return this.open(caller, message, params.configuration?.returnImmediately === true);
    });
  }

  /** Answers once the task settles, as one event: Tollgate streams through its own API. */
  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const task = await this.sendMessage(params, context);
    yield { payload: { $case: 'task', value: task } };
  }

  getTask(params: { id: string }, context: ServerCallContext): Promise<Task> {
    return a2aErrors(this.log, async () =>
      taskOf(this.agentId, await this.status(callerOf(context), params.id)),
    );
  }

  cancelTask(): Promise<Task> {
    const why = 'Tollgate runs are not cancelled over A2A; decline the waiting call instead.';
    return Promise.reject(new TaskNotCancelableError(why));
  }

  listTasks(): Promise<never> {
    return unsupported('Listing tasks');
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

  async *resubscribe(): AsyncGenerator<StreamResponse, void, undefined> {
    await unsupported('Subscribing to a task');
  }

  /** A message without a task id: a new run, or the run an earlier send of it started. */
  private async open(caller: Caller, message: Message, immediately: boolean): Promise<Task> {
    const contextId = message.contextId || newContextId(caller.identity.id, message.messageId);
    checkContextId(contextId);
    const runId = taskIdFor(caller.identity.id, contextId, message.messageId);
    const text = textOf(message).trim();
    if (text === '') throw new RequestMalformedError('A message that opens a task needs text.');
    const seen = await this.existing(caller, runId);
    if (seen) return taskOf(this.agentId, seen);
    const requestContext = { a2a: { contextId, messageId: message.messageId } };
    let stream: AgentStream;
    try {
      stream = await this.agentOf(caller).stream(text, { runId, requestContext });
    } catch (error) {
      // The same message sent twice at once: the other send started the run.
      const started = await this.existing(caller, runId);
      if (started) return taskOf(this.agentId, started);
      throw error;
    }
    if (immediately) {
      stream.recorded.catch(() => undefined);
      return taskOf(this.agentId, { runId, state: 'running', pending: [] });
    }
    return this.settled(caller, await collectOutput(stream));
  }

  /** A message to a task: the answer to one of its waiting calls. */
  private async answer(caller: Caller, message: Message): Promise<Task> {
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
    let output: AgentOutput;
    if (reply.kind === 'resume') {
      output = await agent.resumeGenerate(reply.resumeData, base);
    } else if (reply.kind === 'decline') {
      output = await agent.declineToolCallGenerate({ ...base, ...reasonOf(reply) });
    } else {
      // An agent approves only where a person named it; checked before anything is sent.
      if (caller.kind === 'agent') requireAgentApprover(reply.call, caller.identity);
      const fingerprint = reply.fingerprint ?? reply.call.fingerprint;
      output = await agent.approveToolCallGenerate({ ...base, ...reasonOf(reply), fingerprint });
    }
    return this.settled(caller, output);
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

function unsupported(what: string): Promise<never> {
  return Promise.reject(
    new UnsupportedOperationError(`${what} is not supported by Tollgate's A2A server.`),
  );
}
