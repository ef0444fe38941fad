import {
  contentToText,
  EventType,
  PROTOCOL_VERSION,
  type Event as AgUiEvent,
  type Interrupt,
  type Message,
  type ResumeEntry,
  type RunAgentInput,
} from '@ag-ui/core';
import type { Chunk } from '../../common/chunks.js';
import { TollgateError, isTollgateError } from '../../common/errors.js';
import type { Tollgate } from '../../runtime.js';
import type { AgentClient } from '../../temporal-client/agent-client.js';
import { HttpError } from '../errors.js';
import { refuseRepeats } from '../chat/chat-answers.js';
import { isRunOfThread, replayOf, type ChatThread } from '../chat/chat-runs.js';
import { requireId, type ChatCaller } from '../chat/chat-caller.js';
import { ChatSession } from '../chat/chat-session.js';
import { AgUiTranslator } from './ag-ui-events.js';
import { agUiMessagesOf } from './ag-ui-messages.js';
import { followPointOf, type Shown } from './follow-point.js';
import { answerOf, interruptOf, notIssuedHere } from './interrupts.js';

/**
 * The AG-UI state of a thread (STATE_SNAPSHOT): the durable run the AG-UI run streamed, whether
 * it works, waits or ended, and the interrupts it waits on. Tollgate owns it: the `state` a
 * client sends in RunAgentInput is not read.
 */
export interface AgUiState {
  tollgate: {
    /** The Tollgate run (Temporal workflow id); absent when the thread has no open run. */
    runId?: string;
    status: 'idle' | 'running' | 'waiting' | 'completed' | 'failed';
    /** The calls that wait for an answer, as the interrupts RUN_FINISHED carries. */
    waiting: Interrupt[];
  };
}

type Source = { runId: string; chunks: AsyncIterable<Chunk> };

/** What a reload sends before any run's events. */
interface Opening {
  /** The MESSAGES_SNAPSHOT. */
  messages: Message[];
  /** The thread's state, when no run is followed (it waits, or there is none). */
  report?: AgUiState;
  /** What the snapshot shows of the run that is followed. */
  shown?: Shown;
}

/** Resume entries one request may carry: each asks the run it names, before any is applied. */
const MAX_RESUME_ENTRIES = 64;

/**
 * One AG-UI run (RunAgentInput) on a thread of one caller. The thread is the Tollgate memory
 * thread `{ thread: threadId, resource: caller }`, as the chat bridge keys it. Resume entries
 * become decisions in the caller's name; otherwise a trailing user message starts a durable
 * run whose id is the AG-UI runId (so a retried request finds its run instead of starting
 * another); otherwise the thread's open run is reported: what it waits for, or, while it works,
 * the run itself, followed live.
 */
export class AgUiSession {
  private readonly chat: ChatSession;
  private readonly agent: AgentClient;
  private readonly thread: ChatThread;

  constructor(
    private readonly tollgate: Tollgate,
    private readonly agentId: string,
    caller: ChatCaller,
    private readonly input: RunAgentInput,
  ) {
    requireId(input.threadId, 'threadId');
    this.chat = new ChatSession(tollgate, agentId, input.threadId, caller);
    this.agent = this.chat.agent;
    this.thread = this.chat.thread;
  }

  /**
   * The AG-UI run's events. Everything that can refuse the request (scope, unknown agent, bad
   * interrupt id, a call no longer waiting, a decider the run refuses) throws before the first
   * event, having changed nothing.
   */
  async events(): Promise<AsyncIterable<AgUiEvent>> {
    const { resume, messages } = this.input;
    if (resume && resume.length > 0) return this.lifecycle(await this.answer(resume));
    const last = messages.at(-1);
    if (last?.role === 'user') return this.lifecycle([await this.start(last)]);
    return this.report();
  }

  private async start(message: Extract<Message, { role: 'user' }>): Promise<Source> {
    const text = contentToText(message.content);
    if (text.trim() === '') {
      throw new HttpError(400, 'BAD_REQUEST', 'The last user message holds no text; send text.');
    }
    const { runId } = this.input;
    requireId(runId, 'runId');
    requireId(message.id, 'user message id');
    try {
      const stream = await this.chat.start(text, message.id, runId);
      // Not always `runId`: with autoResumeSuspendedTools the message resumes a parked call.
      return { runId: stream.runId, chunks: stream.fullStream };
    } catch (error) {
      if (!(await this.isRetry(error))) throw error;
      // The same request again (a dropped connection): the run it started, from its start.
      return { runId, chunks: replayOf(this.agent, runId) };
    }
  }

  private async isRetry(error: unknown): Promise<boolean> {
    const cause = isTollgateError(error, 'INVALID_OPTIONS') ? error.cause : undefined;
    if (!(cause instanceof Error && cause.name === 'WorkflowExecutionAlreadyStartedError')) {
      return false;
    }
    return isRunOfThread(await this.tollgate.client(), this.input.runId, this.thread);
  }

  private async answer(resume: ResumeEntry[]): Promise<Source[]> {
    if (resume.length > MAX_RESUME_ENTRIES) {
      throw new TollgateError(
        'INVALID_DECISION',
        `The request answers ${resume.length} interrupts; answer at most ${MAX_RESUME_ENTRIES} in one run.`,
      );
    }
    const client = await this.tollgate.client();
    const lookup = async (runId: string, toolCallId: string, interruptId: string) => {
      if (!(await isRunOfThread(client, runId, this.thread))) throw notIssuedHere(interruptId);
      const pending = await this.agent.pendingToolCalls(runId);
      return pending.find((call) => call.toolCallId === toolCallId);
    };
    const answers = [];
    for (const entry of resume) {
      answers.push(await answerOf(entry, (run, call) => lookup(run, call, entry.interruptId)));
    }
    refuseRepeats(answers);
    return (await this.chat.decide(answers)).sources;
  }

  /**
   * No answer and no new message (a front-end that reloaded): the thread's messages as a
   * MESSAGES_SNAPSHOT, then what its open run waits for, or, while it works, the run followed
   * from the point the snapshot shows (`followPoint`) to its end or its next wait.
   */
  private async report(): Promise<AsyncIterable<AgUiEvent>> {
    // The scope first: a caller who may not read here learns nothing, not even what exists.
    this.chat.allow('read');
    const agents = await this.tollgate.listAgents();
    if (!agents.some((a) => a.agentId === this.agentId)) {
      throw new TollgateError(
        'AGENT_NOT_FOUND',
        `No agent "${this.agentId}" is listed on this task queue; check the agent id in the URL.`,
      );
    }
    const { messages, run } = await this.chat.conversation();
    const snapshot = agUiMessagesOf(this.input.threadId, messages);
    if (run && run.calls.length === 0) {
      // Read after the messages: the log holds all they hold, and maybe more.
      const client = await this.tollgate.client();
      const { offset, ...shown } = await followPointOf(client, run.runId, messages);
      const source = { runId: run.runId, chunks: replayOf(this.agent, run.runId, offset) };
      return this.lifecycle([source], { messages: snapshot, shown });
    }
    const waiting = run ? run.calls.map((call) => interruptOf(run.runId, call)) : [];
    const status = waiting.length > 0 ? 'waiting' : 'idle';
    const report: AgUiState = {
      tollgate: { ...(run ? { runId: run.runId } : {}), status, waiting },
    };
    return this.lifecycle([], { messages: snapshot, report });
  }

  /**
   * RUN_STARTED, the state, the sources' events, then the state again and RUN_FINISHED (an
   * interrupt outcome while calls wait) or RUN_ERROR. `opening`: a MESSAGES_SNAPSHOT first, and
   * either the thread's state when nothing streams (`report`) or what the snapshot `shown`.
   */
  private async *lifecycle(sources: Source[], opening?: Opening): AsyncIterable<AgUiEvent> {
    const { threadId, runId } = this.input;
    const report = opening?.report;
    yield { type: EventType.RUN_STARTED, threadId, runId, protocolVersion: PROTOCOL_VERSION };
    if (opening) yield { type: EventType.MESSAGES_SNAPSHOT, messages: opening.messages };
    const last = sources.at(-1)?.runId;
    const running: AgUiState = { tollgate: { runId: last, status: 'running', waiting: [] } };
    yield { type: EventType.STATE_SNAPSHOT, snapshot: report ?? running };
    const translator = new AgUiTranslator(runId, opening?.shown);
    const suspended: string[] = [];
    for (const source of sources) {
      for await (const chunk of source.chunks) yield* translator.translate(chunk);
      yield* translator.close();
      const end = translator.takeEnd();
      if (end?.kind === 'error') {
        yield { type: EventType.STATE_SNAPSHOT, snapshot: ended(last, 'failed') };
        yield { type: EventType.RUN_ERROR, message: end.message, code: end.code ?? 'RUN_FAILED' };
        return;
      }
      if (end?.finishReason === 'suspended') suspended.push(source.runId);
    }
    const waiting = report?.tollgate.waiting ?? (await this.waitingIn(suspended));
    if (!report) {
      yield {
        type: EventType.STATE_SNAPSHOT,
        snapshot:
          waiting.length > 0
            ? { tollgate: { runId: last, status: 'waiting', waiting } }
            : suspended.length > 0
              ? // Its calls were decided elsewhere since it stopped: it works on.
                { tollgate: { runId: last, status: 'running', waiting } }
              : ended(last, 'completed'),
      };
    }
    const outcome =
      waiting.length > 0
        ? { type: 'interrupt' as const, interrupts: waiting }
        : { type: 'success' as const };
    yield { type: EventType.RUN_FINISHED, threadId, runId, outcome };
  }

  /** The interrupts of the calls that wait in `runIds`. */
  private async waitingIn(runIds: string[]): Promise<Interrupt[]> {
    const lists = await Promise.all(
      runIds.map(async (runId) =>
        (await this.agent.pendingToolCalls(runId)).map((call) => interruptOf(runId, call)),
      ),
    );
    return lists.flat();
  }
}

const ended = (runId: string | undefined, status: 'completed' | 'failed'): AgUiState => ({
  tollgate: { ...(runId ? { runId } : {}), status, waiting: [] },
});
