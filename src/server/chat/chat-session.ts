import { randomUUID } from 'node:crypto';
import type { UIMessage, UIMessageChunk } from 'ai';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { AgentClient } from '../../temporal-client/agent-client.js';
import type { AgentStream } from '../../stream/agent-stream.js';
import type { Chunk } from '../../common/chunks.js';
import { TollgateError } from '../../common/errors.js';
import type { JsonValue } from '../../common/json.js';
import type { DecidedBy, PendingToolCall } from '../../common/run-types.js';
import {
  requireAction,
  requireAgent,
  requireResource,
  type Scope,
  type ScopeAction,
} from '../../common/scope.js';
import { idProblem } from '../../common/limits.js';
import { THREAD_MESSAGES, threadWorkflowId } from '../../common/wire.js';
import type { Tollgate } from '../../runtime.js';
import { HttpError } from '../errors.js';
import { notIssued, shown } from './approval-id.js';
import { answersIn, type ChatAnswer } from './chat-answers.js';
import {
  conversationOf,
  declinedIn,
  isRunOfThread,
  openRunOf,
  replayOf,
  withRunMessages,
} from './chat-runs.js';
import { continuationOf } from './continuation.js';
import { userMessageOf } from './message-ids.js';
import { UiChunkTranslator } from './ui-chunks.js';
import { uiMessagesOf } from './ui-history.js';

/** Who posts to a chat, as the server's auth established it (never the request body). */
export interface ChatCaller {
  /** Recorded as `decidedBy` on every decision the chat makes. */
  identity: DecidedBy;
  /** What the caller may do; undefined: everything. */
  scope?: Scope;
  /** The memory resource (tenant or user) of the caller's chats. Default: `identity.id`. */
  resource?: string;
}

/** A chat's run that is still open, the calls that wait in it and those it declined. */
export interface OpenRun {
  runId: string;
  calls: PendingToolCall[];
  declined: Set<string>;
}

/** How many thread messages a chat page is given back, at most. */
const HISTORY_MESSAGES = 1000;

/**
 * One chat of one caller: the memory thread `{ thread: chatId, resource }` of one agent. Every
 * run it starts, decides or shows belongs to that thread, so a reload, a second tab or a later
 * visit continues the same conversation.
 */
export class ChatSession {
  private readonly agent: AgentClient;
  readonly resource: string;

  constructor(
    private readonly tollgate: Tollgate,
    private readonly agentId: string,
    readonly chatId: string,
    private readonly caller: ChatCaller,
  ) {
    const problem = idProblem(chatId, `The chat id ${shown(chatId)}`);
    if (problem) throw new HttpError(400, 'BAD_REQUEST', problem);
    this.resource = caller.resource ?? caller.identity.id;
    this.agent = tollgate.getAgent(agentId, {
      ...(caller.scope ? { scope: caller.scope } : {}),
      identity: caller.identity,
    });
  }

  private allow(action: ScopeAction): void {
    requireAction(this.caller.scope, action);
    requireAgent(this.caller.scope, this.agentId);
    requireResource(this.caller.scope, this.resource);
  }

  /**
   * A user message (`messageId`: the id `useChat` gave it): a new run on the chat's thread,
   * answered by an assistant message whose id is the run's, live and on every reload.
   */
  async send(text: string, messageId: string): Promise<AsyncIterable<UIMessageChunk>> {
    const stream = await this.start(text, messageId, randomUUID());
    return uiChunks([sourceOf(stream)], { messageId: stream.runId });
  }

  /** Starts run `runId` on the chat's thread with the user's `text` (message `messageId`). */
  async start(text: string, messageId: string, runId: string): Promise<AgentStream> {
    this.allow('start');
    return this.agent.stream([userMessageOf(text, { messageId, replyId: runId })], {
      runId,
      memory: { thread: this.chatId, resource: this.resource },
    });
  }

  /**
   * The answers of the chat's last assistant message, as Tollgate decisions in the caller's
   * name (see `decide`).
   */
  async answer(message: UIMessage): Promise<AsyncIterable<UIMessageChunk>> {
    this.allow('decide');
    const answers = answersIn(message);
    if (answers.length === 0) {
      throw new TollgateError(
        'INVALID_DECISION',
        'The last message holds no approval response or resume data; send a user message, or answer a waiting call.',
      );
    }
    const { sources, declined } = await this.decide(answers);
    return uiChunks(sources, { declined });
  }

  /**
   * Answers as Tollgate decisions in the caller's name. Every answer is checked first (its run
   * is one of this chat's, its call waits, the fingerprint matches): a refused answer decides
   * nothing. Returns each run's continuation (`continuationOf`) and the calls declined.
   */
  async decide(answers: ChatAnswer[]): Promise<{
    sources: Array<{ runId: string; chunks: AsyncIterable<Chunk> }>;
    declined: Set<string>;
  }> {
    this.allow('decide');
    for (const answer of answers) await this.check(answer);
    const byRun = new Map<string, AgentStream[]>();
    const declined = new Set<string>();
    for (const answer of answers) {
      const stream = await this.apply(answer);
      byRun.set(stream.runId, [...(byRun.get(stream.runId) ?? []), stream]);
      if (answer.kind === 'decline') declined.add(answer.toolCallId);
    }
    const sources = [...byRun].map(([runId, decisions]) => ({
      runId,
      chunks: continuationOf(this.agent, decisions),
    }));
    return { sources, declined };
  }

  /**
   * The chat's messages: the thread's, followed by the open run's own (running or waiting), its
   * waiting calls as approval requests or suspend parts, its declined calls as denied.
   */
  async messages(): Promise<UIMessage[]> {
    this.allow('read');
    return (await this.history()).messages;
  }

  /**
   * The open run's chunks from its start, for a page that reloaded while the run was working:
   * they rebuild the run's assistant message (same id as `messages()` gives it) and continue
   * live. Undefined when no run works: nothing to resume (a waiting call is in `messages()`).
   */
  async resume(): Promise<AsyncIterable<UIMessageChunk> | undefined> {
    this.allow('read');
    const { run, replyId: messageId } = await this.history();
    if (!run || run.calls.length > 0) return undefined;
    const source = { runId: run.runId, chunks: replayOf(this.agent, run.runId) };
    return uiChunks([source], { messageId, declined: run.declined });
  }

  private async history(): Promise<{
    messages: UIMessage[];
    replyId: string;
    run?: OpenRun;
  }> {
    const { messages, run } = await this.conversation();
    return run
      ? { ...uiMessagesOf(this.chatId, messages, run), run }
      : uiMessagesOf(this.chatId, messages);
  }

  /**
   * The chat's model messages (the thread's, then the open run's own) and its open run, with
   * the calls that wait in it and those it declined.
   */
  async conversation(): Promise<{ messages: JsonValue[]; run?: OpenRun }> {
    this.allow('read');
    const client = await this.tollgate.client();
    const thread = await this.threadMessages(client);
    const runId = await openRunOf(client, {
      agentId: this.agentId,
      threadId: this.chatId,
      resourceId: this.resource,
    });
    if (runId === undefined) return { messages: thread };
    const [conversation, calls, declined] = await Promise.all([
      conversationOf(client, runId),
      this.agent.pendingToolCalls(runId),
      declinedIn(this.agent, runId),
    ]);
    return { messages: withRunMessages(thread, conversation), run: { runId, calls, declined } };
  }

  private async threadMessages(client: Client): Promise<JsonValue[]> {
    const threadId = threadWorkflowId(this.agentId, this.resource, this.chatId);
    try {
      return await client.workflow
        .getHandle(threadId)
        .query<JsonValue[], [{ last: number }]>(THREAD_MESSAGES.messages, {
          last: HISTORY_MESSAGES,
        });
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return [];
      throw error;
    }
  }

  private async check(answer: ChatAnswer): Promise<void> {
    const label = answer.kind === 'resume' ? answer.toolCallId : answer.approvalId;
    if (!(await this.ownsRun(answer.runId))) throw notIssued(label);
    const call = (await this.agent.pendingToolCalls(answer.runId)).find(
      (c) => c.toolCallId === answer.toolCallId,
    );
    if (!call) {
      throw new TollgateError(
        'TOOL_CALL_NOT_PENDING',
        `Tool call ${answer.toolCallId} no longer waits for an answer; reload the chat to see what happened to it.`,
      );
    }
    if (answer.kind !== 'resume' && call.fingerprint !== answer.fingerprint) {
      throw new TollgateError(
        'FINGERPRINT_MISMATCH',
        `The approval id ${label} was issued for other arguments than tool call ${call.toolCallId} now has; reload the chat and answer again.`,
      );
    }
    if ((answer.kind === 'resume') === call.requiresApproval) {
      throw new TollgateError(
        'WRONG_DECISION_KIND',
        call.requiresApproval
          ? `Tool call ${call.toolCallId} waits for an approval, not resume data; answer it with addToolApprovalResponse.`
          : `Tool call ${call.toolCallId} was parked by suspend() and waits for resume data; answer it with addToolOutput.`,
      );
    }
  }

  private async ownsRun(runId: string): Promise<boolean> {
    const thread = { agentId: this.agentId, threadId: this.chatId, resourceId: this.resource };
    return isRunOfThread(await this.tollgate.client(), runId, thread);
  }

  private apply(answer: ChatAnswer): Promise<AgentStream> {
    const decidedBy = this.caller.identity;
    const { runId, toolCallId } = answer;
    if (answer.kind === 'resume') {
      return this.agent.resumeStream(answer.resumeData, { runId, toolCallId, decidedBy });
    }
    const reason = answer.reason !== undefined ? { reason: answer.reason } : {};
    if (answer.kind === 'decline') {
      return this.agent.declineToolCall({ runId, toolCallId, decidedBy, ...reason });
    }
    const { fingerprint } = answer;
    const args = answer.args !== undefined ? { args: answer.args } : {};
    return this.agent.approveToolCall({
      runId,
      toolCallId,
      fingerprint,
      decidedBy,
      ...reason,
      ...args,
    });
  }
}

const sourceOf = (stream: AgentStream) => ({ runId: stream.runId, chunks: stream.fullStream });

/** The UI message chunks of one response: `start`, each stream's chunks, and nothing after. */
async function* uiChunks(
  sources: Array<{ runId: string; chunks: AsyncIterable<Chunk> }>,
  options: { messageId?: string; declined?: ReadonlySet<string> },
): AsyncIterable<UIMessageChunk> {
  yield options.messageId !== undefined
    ? { type: 'start', messageId: options.messageId }
    : { type: 'start' };
  // One response is one assistant message: only the last run's `finish` ends it.
  let finish: UIMessageChunk | undefined;
  for (const source of sources) {
    const translator = new UiChunkTranslator(source.runId, options.declined);
    for await (const chunk of source.chunks) {
      for (const ui of translator.translate(chunk)) {
        if (ui.type === 'finish') finish = ui;
        else yield ui;
      }
    }
    yield* translator.end();
  }
  if (finish) yield finish;
}
