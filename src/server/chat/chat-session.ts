import { randomUUID } from 'node:crypto';
import type { UIMessage, UIMessageChunk } from 'ai';
import type { AgentClient } from '../../temporal-client/agent-client.js';
import type { AgentStream } from '../../stream/agent-stream.js';
import { TollgateError } from '../../common/errors.js';
import type { JsonValue } from '../../common/json.js';
import {
  requireAction,
  requireAgent,
  requireResource,
  type ScopeAction,
} from '../../common/scope.js';
import type { Tollgate } from '../../runtime.js';
import { answersIn, type ChatAnswer } from './chat-answers.js';
import { requireId, type ChatCaller } from './chat-caller.js';
import { decideAnswers } from './chat-decisions.js';
import {
  chatConversation,
  isRunOfThread,
  replayOf,
  type ChatThread,
  type OpenRun,
} from './chat-runs.js';
import { userMessageOf } from './message-ids.js';
import { uiMessageChunks } from './ui-chunks.js';
import { uiMessagesOf } from './ui-history.js';

/**
 * One chat of one caller: the memory thread `{ thread: chatId, resource }` of one agent. Every
 * run it starts, decides or shows belongs to that thread, so a reload, a second tab or a later
 * visit continues the same conversation. Deciding is `chat-decisions.ts`, reading the thread and
 * its runs `chat-runs.ts`, the UI message stream `ui-chunks.ts`; this class holds the caller's
 * rights over the chat.
 */
export class ChatSession {
  /** The chat's agent, in the caller's name and scope. */
  readonly agent: AgentClient;
  readonly resource: string;
  /** The memory thread the chat's runs belong to. */
  readonly thread: ChatThread;

  constructor(
    private readonly tollgate: Tollgate,
    private readonly agentId: string,
    readonly chatId: string,
    private readonly caller: ChatCaller,
  ) {
    requireId(chatId, 'chat id');
    this.resource = caller.resource ?? caller.identity.id;
    this.agent = tollgate.getAgent(agentId, {
      ...(caller.scope ? { scope: caller.scope } : {}),
      identity: caller.identity,
    });
    this.thread = { agentId, threadId: chatId, resourceId: this.resource };
  }

  /** Refuses (`FORBIDDEN`) unless the caller's scope allows `action` on this agent and resource. */
  allow(action: ScopeAction): void {
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
    const source = { runId: stream.runId, chunks: stream.fullStream };
    return uiMessageChunks([source], { messageId: stream.runId });
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
    return uiMessageChunks(sources, { declined });
  }

  /** Answers as decisions in the caller's name, each checked before any applies (`decideAnswers`). */
  async decide(answers: ChatAnswer[]): ReturnType<typeof decideAnswers> {
    this.allow('decide');
    const ownsRun = async (runId: string) =>
      isRunOfThread(await this.tollgate.client(), runId, this.thread);
    return decideAnswers({ agent: this.agent, decidedBy: this.caller.identity, ownsRun }, answers);
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
    return uiMessageChunks([source], { messageId, declined: run.declined });
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
    return chatConversation(await this.tollgate.client(), this.agent, this.thread);
  }
}
