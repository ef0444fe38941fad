import type { AgentOutput } from '../stream/agent-output.js';
import { latestPending, type AgentStream } from '../stream/agent-stream.js';
import {
  agentPath,
  RUN_ID_HEADER,
  type AgentRouteName,
  type ApproveBody,
  type DeclineBody,
  type HandOffBody,
  type HttpRunOptions,
  type AuditTrailResponse,
  type MoveRunBody,
  type MoveRunResponse,
  type PendingToolCallsResponse,
  type ResumeBody,
  type SendToolApprovalBody,
  type SendToolApprovalResponse,
  type StreamBody,
  type SuspendedRunsResponse,
  type ForksResponse,
} from '../common/http-api.js';
import type { JsonValue } from '../common/json.js';
import type { ForkListing, ForkRequest } from '../common/fork-types.js';
import type { AuditEntry, HandedOff, PendingToolCall } from '../common/run-types.js';
import { agentStreamOf } from './sse-agent-stream.js';
import type { RequestOptions, Transport } from './transport.js';

export type RemoteRunOptions = HttpRunOptions & RequestOptions;
export type RemoteApproveOptions = ApproveBody & RequestOptions;
export type RemoteDeclineOptions = DeclineBody & RequestOptions;
export type RemoteHandOffOptions = HandOffBody & RequestOptions;
export type RemoteResumeOptions = Omit<ResumeBody, 'resumeData'> & RequestOptions;
export type RemoteSendToolApprovalOptions = SendToolApprovalBody & RequestOptions;
export type RemoteMoveRunOptions = MoveRunBody & RequestOptions;

/** Filters and paging of `listSuspendedRuns` over HTTP (SPEC §9). */
export interface RemoteListSuspendedRunsOptions extends RequestOptions {
  threadId?: string;
  resourceId?: string;
  /** Runs started at or after this instant (a `Date` or an ISO-8601 string). */
  fromDate?: Date | string;
  /** Runs started at or before this instant. */
  toDate?: Date | string;
  /** Runs per page, 1-1000. Default 20. */
  perPage?: number;
  /** From 0. Default 0. */
  page?: number;
}

/**
 * One agent's runs, steered over HTTP with the method names of SPEC §3. Decisions are recorded
 * in the name of the client's token; there is no `decidedBy` to pass.
 */
export class RemoteAgent {
  constructor(
    readonly agentId: string,
    private readonly transport: Transport,
  ) {}

  /** Starts a run and streams it until it finishes or waits for a decision. */
  stream(messages: StreamBody['messages'], options: RemoteRunOptions = {}): Promise<AgentStream> {
    const { signal, ...runOptions } = options;
    return this.openStream('stream', { messages, options: runOptions }, signal);
  }

  /** Starts a run and waits until it finishes or waits for a decision. */
  generate(messages: StreamBody['messages'], options: RemoteRunOptions = {}): Promise<AgentOutput> {
    const { signal, ...runOptions } = options;
    return this.post('generate', { messages, options: runOptions }, signal);
  }

  approveToolCall({ signal, ...body }: RemoteApproveOptions): Promise<AgentStream> {
    return this.openStream('approveToolCall', body, signal);
  }

  declineToolCall({ signal, ...body }: RemoteDeclineOptions): Promise<AgentStream> {
    return this.openStream('declineToolCall', body, signal);
  }

  /**
   * Hands a waiting approval to other approvers, in the token's name (docs/hand-off.md). The
   * call keeps waiting; answers who decides it now.
   */
  handOffToolCall({ signal, ...body }: RemoteHandOffOptions): Promise<HandedOff> {
    return this.post('handOffToolCall', body, signal);
  }

  /** Resumes a call parked by its tool's `suspend()`; the tool runs again with `resumeData`. */
  resumeStream(
    resumeData: JsonValue,
    { signal, ...target }: RemoteResumeOptions,
  ): Promise<AgentStream> {
    return this.openStream('resumeStream', { ...target, resumeData }, signal);
  }

  approveToolCallGenerate({ signal, ...body }: RemoteApproveOptions): Promise<AgentOutput> {
    return this.post('approveToolCallGenerate', body, signal);
  }

  declineToolCallGenerate({ signal, ...body }: RemoteDeclineOptions): Promise<AgentOutput> {
    return this.post('declineToolCallGenerate', body, signal);
  }

  resumeGenerate(
    resumeData: JsonValue,
    { signal, ...target }: RemoteResumeOptions,
  ): Promise<AgentOutput> {
    return this.post('resumeGenerate', { ...target, resumeData }, signal);
  }

  /** Decides the one call that waits in a conversation, found by thread and resource. */
  sendToolApproval({
    signal,
    ...body
  }: RemoteSendToolApprovalOptions): Promise<SendToolApprovalResponse> {
    return this.post('sendToolApproval', body, signal);
  }

  /** Replays a run's chunks from `offset` (default 0) until its next finish. */
  observe({
    signal,
    ...body
  }: { runId: string; offset?: number } & RequestOptions): Promise<AgentStream> {
    return this.openStream('observe', body, signal);
  }

  /** The agent's runs that wait for a decision. */
  listSuspendedRuns(options: RemoteListSuspendedRunsOptions = {}): Promise<SuspendedRunsResponse> {
    const { signal, ...query } = options;
    return this.transport.json({
      method: 'GET',
      path: agentPath(this.agentId, 'suspendedRuns'),
      query,
      ...(signal ? { signal } : {}),
    });
  }

  /** The calls one run waits on. */
  async pendingToolCalls(runId: string, options: RequestOptions = {}): Promise<PendingToolCall[]> {
    const answer = await this.transport.json<PendingToolCallsResponse>({
      method: 'GET',
      path: agentPath(this.agentId, 'pendingToolCalls'),
      query: { runId },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return answer.toolCalls;
  }

  /** The run's audit trail: gates, requests, decisions, expiries and reminders (SPEC §10). */
  async getAuditTrail(runId: string, options: RequestOptions = {}): Promise<AuditEntry[]> {
    const answer = await this.transport.json<AuditTrailResponse>({
      method: 'GET',
      path: agentPath(this.agentId, 'audit'),
      query: { runId },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return answer.entries;
  }

  /**
   * Starts a new run from run `runId`'s conversation at the end of step `step` (docs/fork.md) and
   * streams it. Needs `start` and `read` of the run: `INVALID_FORK_STEP` (422), `RUN_NOT_FOUND` (404).
   */
  fork({ signal, ...body }: ForkRequest & RequestOptions): Promise<AgentStream> {
    return this.openStream('fork', body, signal);
  }

  /** The run's forks the token may see, newest first. */
  async listForks(runId: string, options: RequestOptions = {}): Promise<ForkListing[]> {
    const answer = await this.transport.json<ForksResponse>({
      method: 'GET',
      path: agentPath(this.agentId, 'forks'),
      query: { runId },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return answer.forks;
  }

  /**
   * Moves a pinned run that waits on a person to another build, once that build replayed it
   * (docs/deploying.md); recorded in the run's audit trail in the token's name. Needs `admin`:
   * `FORBIDDEN` (403), `RUN_NOT_MOVABLE` / `REPLAY_FAILED` (409), `WORKER_UNAVAILABLE` (503).
   */
  moveRun({ signal, ...body }: RemoteMoveRunOptions): Promise<MoveRunResponse> {
    return this.post('moveRun', body, signal);
  }

  private post<T>(route: AgentRouteName, body: object, signal: AbortSignal | undefined) {
    return this.transport.json<T>({
      method: 'POST',
      path: agentPath(this.agentId, route),
      body,
      ...(signal ? { signal } : {}),
    });
  }

  private async openStream(
    route: AgentRouteName,
    body: object,
    signal: AbortSignal | undefined,
  ): Promise<AgentStream> {
    const response = await this.transport.send({
      method: 'POST',
      path: agentPath(this.agentId, route),
      body,
      accept: 'text/event-stream',
      ...(signal ? { signal } : {}),
    });
    const runId = response.headers.get(RUN_ID_HEADER) ?? '';
    return agentStreamOf(response, async () => latestPending(await this.pendingToolCalls(runId)));
  }
}
