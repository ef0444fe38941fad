import {
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  isGrpcDeadlineError,
  type Client,
  type WorkflowExecutionDescription,
} from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseDuration } from '../common/approval-rules.js';
import { TollgateError } from '../common/errors.js';
import type { JsonValue } from '../common/json.js';
import type {
  AppliedDecision,
  AuditEntry,
  DecisionInput,
  DecisionKind,
  PendingToolCall,
  RequestPolicy,
  RunInput,
} from '../common/run-types.js';
import { SA_KEYS } from '../common/search-attribute-keys.js';
import { auditQuery, decisionUpdates, pendingToolCallsQuery } from '../common/messages.js';
import { AGENT_RUN_WORKFLOW } from '../common/wire.js';
import type { ToolApprovalPolicy } from '../definitions/agent.js';
import type { LiveBus } from '../live/live-bus.js';
import { collectOutput, type AgentOutput } from './agent-output.js';
import { AgentStream, latestPending } from './agent-stream.js';
import { toRules } from '../definitions/approval-policy.js';
import { autoResume } from './auto-resume.js';
import { sendDecisionWithin } from './bounded-decision.js';
import type { CheckedDecisionSettings } from './decision-settings.js';
import { toTollgateError } from './errors.js';
import type { WorkerAvailability } from './worker-pollers.js';
import {
  listSuspendedRuns,
  type ListSuspendedRunsOptions,
  type SuspendedRuns,
} from './list-suspended-runs.js';
import { pickApprovalTarget, type SendToolApprovalOptions } from './send-tool-approval.js';
import {
  checkDecision,
  checkId,
  checkRunInput,
  type DecisionOptions,
  type Messages,
  type ResumeOptions,
  type RunOptions,
} from './run-options.js';
import { LiveSubscription, tailRun } from './run-tail.js';
import { ScopeGuard } from './scope-guard.js';
import type { Scope, ScopeAction } from '../common/scope.js';

/** What an agent handle needs from the runtime that made it. */
export interface AgentClientContext {
  client(): Promise<Client>;
  taskQueue: string;
  bus: LiveBus;
  /** Aborted when the runtime shuts down: streams stop following their runs. */
  lifetime: AbortSignal;
  /** Keeps a request's policy function in this process; returns the task queue that serves it. */
  holdPolicy(runId: string, policy: ToolApprovalPolicy): Promise<string>;
  releasePolicy(runId: string): void;
  /** How long decisions wait, and their deadline margin. */
  decisions: CheckedDecisionSettings;
  /** Whether a run's task queue has a worker; shared by the runtime's handles. */
  workers: WorkerAvailability;
  /** Resolves when the agent directory lists the agent; rejects with `AGENT_NOT_FOUND`. */
  requireAgent(agentId: string): Promise<void>;
}

/** Pause before asking Temporal a second time whether a run it said it does not know exists. */
const RECHECK_MS = 500;

/**
 * Starts and steers runs of one agent by id (SPEC §3). Needs no agent code: any process
 * connected to the namespace can use it. With a `scope`, every call is held to it (README
 * "Scopes"); a run of another agent is `RUN_NOT_FOUND` either way.
 */
export class AgentClient {
  private readonly guard: ScopeGuard;

  constructor(
    readonly agentId: string,
    private readonly context: AgentClientContext,
    scope?: Scope,
  ) {
    this.guard = new ScopeGuard(agentId, scope);
  }

  /**
   * Starts a run and streams it until it finishes or waits for a decision.
   *
   * @throws TollgateError `AGENT_NOT_FOUND`, starting nothing, when no worker hosting the agent
   * ever published it on this task queue (see `Tollgate.listAgents()`).
   */
  async stream(messages: Messages, options?: RunOptions): Promise<AgentStream> {
    const opts = options ?? {};
    const initial = checkRunInput(messages, opts);
    this.guard.request('start');
    this.guard.resource(opts.memory?.resource);
    await this.context.requireAgent(this.agentId);
    const client = await this.context.client();
    const resumed = await autoResume(this.agentId, client, this.context.bus, initial, opts);
    if (resumed) return this.follow(client, resumed.runId, resumed.applied.offset, resumed.live);
    const runId = opts.runId ?? randomUUID();
    const input: RunInput = {
      agentId: this.agentId,
      messages: initial,
      requestPolicy: await this.requestPolicy(runId, opts.requireToolApproval),
      requestContext: opts.requestContext ?? {},
      ...(opts.maxSteps !== undefined ? { maxSteps: opts.maxSteps } : {}),
      ...(opts.memory ? { threadId: opts.memory.thread, resourceId: opts.memory.resource } : {}),
      ...(opts.approval ? { approvalRules: toRules(opts.approval, 'approval')! } : {}),
    };
    const live = new LiveSubscription(this.context.bus, runId);
    try {
      await client.workflow.start(AGENT_RUN_WORKFLOW, {
        workflowId: runId,
        taskQueue: this.context.taskQueue,
        args: [input],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        staticSummary: `${this.agentId}: ${summaryOf(initial)}`,
        typedSearchAttributes: [
          { key: SA_KEYS.agentId, value: this.agentId },
          { key: SA_KEYS.status, value: 'running' },
          ...(opts.memory
            ? [
                { key: SA_KEYS.threadId, value: opts.memory.thread },
                { key: SA_KEYS.resourceId, value: opts.memory.resource },
              ]
            : []),
        ],
      });
    } catch (error) {
      live.close();
      this.context.releasePolicy(runId);
      if (error instanceof Error && error.name === 'WorkflowExecutionAlreadyStartedError') {
        throw new TollgateError(
          'INVALID_OPTIONS',
          `A run with id "${runId}" already exists; choose another runId.`,
          { cause: error },
        );
      }
      throw await toTollgateError(error, runId);
    }
    return this.follow(client, runId, 0, live);
  }

  /** Starts a run and waits until it finishes or waits for a decision. */
  async generate(messages: Messages, options?: RunOptions): Promise<AgentOutput> {
    return collectOutput(await this.stream(messages, options));
  }

  async approveToolCall(options: DecisionOptions): Promise<AgentStream> {
    return this.decide('approve', checkDecision(options, 'approveToolCall'));
  }

  async declineToolCall(options: Omit<DecisionOptions, 'fingerprint'>): Promise<AgentStream> {
    return this.decide('decline', checkDecision(options, 'declineToolCall'));
  }

  /** Resumes a call parked by its tool's `suspend()`; the tool runs again with `resumeData`. */
  async resumeStream(resumeData: JsonValue, options: ResumeOptions): Promise<AgentStream> {
    return this.decide('resume', { ...checkDecision(options, 'resumeStream'), resumeData });
  }

  async approveToolCallGenerate(options: DecisionOptions): Promise<AgentOutput> {
    return collectOutput(await this.approveToolCall(options));
  }

  async declineToolCallGenerate(
    options: Omit<DecisionOptions, 'fingerprint'>,
  ): Promise<AgentOutput> {
    return collectOutput(await this.declineToolCall(options));
  }

  async resumeGenerate(resumeData: JsonValue, options: ResumeOptions): Promise<AgentOutput> {
    return collectOutput(await this.resumeStream(resumeData, options));
  }

  /** Replays a run's chunks from `offset` (default 0) until its next finish, from any process. */
  async observe(options: { runId: string; offset?: number }): Promise<AgentStream> {
    const offset = options?.offset ?? 0;
    if (typeof options?.runId !== 'string' || !Number.isInteger(offset) || offset < 0) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        'observe needs { runId: string, offset?: a whole number ≥ 0 }.',
      );
    }
    checkId(options.runId, 'runId');
    const { client } = await this.ownRun('read', options.runId);
    return this.follow(
      client,
      options.runId,
      offset,
      new LiveSubscription(this.context.bus, options.runId),
    );
  }

  /**
   * Every gate evaluation, request, decision (who, when, channel, fingerprint, reason, edits),
   * refusal of a signal, expiry and reminder of a run, in order (SPEC §10). Read from the run's
   * history by a query, so it works for running and closed runs.
   */
  async getAuditTrail(runId: string): Promise<AuditEntry[]> {
    checkId(runId, 'runId');
    const { client } = await this.ownRun('read', runId);
    try {
      return await client.workflow.getHandle(runId).query(auditQuery);
    } catch (error) {
      throw await this.failure(error, runId);
    }
  }

  /** The calls a run waits on, read from the run itself. */
  async pendingToolCalls(runId: string): Promise<PendingToolCall[]> {
    checkId(runId, 'runId');
    const { client } = await this.ownRun('read', runId);
    return this.queryPending(client, runId);
  }

  private async queryPending(client: Client, runId: string): Promise<PendingToolCall[]> {
    try {
      return await client.workflow.getHandle(runId).query(pendingToolCallsQuery);
    } catch (error) {
      throw await this.failure(error, runId);
    }
  }

  /** The agent's runs that wait for a decision, found from Temporal alone (SPEC §9). */
  async listSuspendedRuns(options?: ListSuspendedRunsOptions): Promise<SuspendedRuns> {
    this.guard.request('read');
    return this.listVisible(options);
  }

  /** The waiting runs of this agent the caller may see; a resource filter must be in scope. */
  private async listVisible(options?: ListSuspendedRunsOptions): Promise<SuspendedRuns> {
    if (options?.resourceId !== undefined) this.guard.resource(options.resourceId);
    try {
      const client = await this.context.client();
      return await listSuspendedRuns(client, this.agentId, options, this.guard.scope);
    } catch (error) {
      throw this.context.lifetime.aborted ? this.shutDown(error) : error;
    }
  }

  /**
   * The client, once the caller may do `action` here and `runId` is a run of this agent it may
   * see (else `FORBIDDEN` or `RUN_NOT_FOUND`); with the run's description that check read.
   */
  private async ownRun(
    action: ScopeAction,
    runId: string,
  ): Promise<{ client: Client; run: WorkflowExecutionDescription }> {
    this.guard.request(action);
    const client = await this.context.client();
    try {
      return { client, run: await this.guard.run(client, runId) };
    } catch (error) {
      throw await this.failure(error, runId);
    }
  }

  /**
   * Decides the call that waits in a conversation, found by thread and resource: approve or
   * decline an approval gate, or resume a suspended call with `resumeData`.
   */
  async sendToolApproval(
    options: SendToolApprovalOptions,
  ): Promise<{ accepted: true; runId: string; toolCallId: string }> {
    if (
      typeof options?.threadId !== 'string' ||
      typeof options.resourceId !== 'string' ||
      typeof options.approved !== 'boolean'
    ) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        'sendToolApproval needs { threadId: string, resourceId: string, approved: boolean }.',
      );
    }
    checkId(options.threadId, 'threadId');
    checkId(options.resourceId, 'resourceId');
    if (options.toolCallId !== undefined) checkId(options.toolCallId, 'toolCallId');
    this.guard.request('decide');
    const found = await this.listVisible({
      threadId: options.threadId,
      resourceId: options.resourceId,
      perPage: 1000,
    });
    const target = pickApprovalTarget(found, options);
    const client = await this.context.client();
    const { reason, decidedBy, resumeData, wait } = options;
    await this.applyDecision(client, target.kind, {
      runId: target.runId,
      toolCallId: target.toolCallId,
      ...(wait !== undefined ? { wait } : {}),
      ...(reason !== undefined && target.kind === 'decline' ? { reason } : {}),
      ...(decidedBy !== undefined ? { decidedBy } : {}),
      ...(target.kind === 'resume' ? { resumeData: resumeData ?? null } : {}),
    });
    return { accepted: true, runId: target.runId, toolCallId: target.toolCallId };
  }

  private async decide(
    kind: DecisionKind,
    options: DecisionOptions & { resumeData?: JsonValue },
  ): Promise<AgentStream> {
    const { client, run } = await this.ownRun('decide', options.runId);
    const live = new LiveSubscription(this.context.bus, options.runId);
    let applied: AppliedDecision;
    try {
      applied = await this.applyDecision(client, kind, options, run);
    } catch (error) {
      live.close();
      throw error;
    }
    return this.follow(client, options.runId, applied.offset, live);
  }

  /**
   * Sends one decision as an update, validated by the run before anything reaches history, and
   * answers within the decision's wait: `WORKER_UNAVAILABLE` at once (nothing sent) when no
   * worker polls the run's task queue, `DECISION_NOT_CONFIRMED` when the wait runs out. The
   * decision carries a deadline (now + wait + margin) after which the run refuses it. `run` is
   * the run's description when the caller has just read it.
   */
  private async applyDecision(
    client: Client,
    kind: DecisionKind,
    options: DecisionOptions & { resumeData?: JsonValue },
    run?: WorkflowExecutionDescription,
  ): Promise<AppliedDecision> {
    const { runId, toolCallId, fingerprint, reason, decidedBy, resumeData, args, wait } = options;
    const { waitMs: defaultWaitMs, deadlineMarginMs } = this.context.decisions;
    const waitMs = wait === undefined ? defaultWaitMs : parseDuration(wait, 'wait');
    const started = Date.now();
    try {
      await this.assertWorker(client, runId, started + waitMs, run);
      const input = {
        agentId: this.agentId,
        ...(args !== undefined ? { args } : {}),
        ...(toolCallId !== undefined ? { toolCallId } : {}),
        ...(fingerprint !== undefined ? { fingerprint } : {}),
        ...(reason !== undefined ? { reason } : {}),
        ...(decidedBy !== undefined ? { decidedBy } : {}),
        ...(resumeData !== undefined ? { resumeData } : {}),
        deadline: new Date(started + waitMs + deadlineMarginMs).toISOString(),
      } satisfies DecisionInput;
      const left = Math.max(1, started + waitMs - Date.now());
      return await sendDecisionWithin(client, runId, decisionUpdates[kind], input, left);
    } catch (error) {
      throw await this.failure(error, runId);
    }
  }

  /** Throws `WORKER_UNAVAILABLE` when no worker polls the open run's task queue. */
  private async assertWorker(
    client: Client,
    runId: string,
    deadline: number,
    run?: WorkflowExecutionDescription,
  ): Promise<void> {
    let found;
    try {
      found = await client.connection.withDeadline(deadline, () =>
        this.context.workers.ofRun(client, runId, run),
      );
    } catch (error) {
      if (!isGrpcDeadlineError(error)) throw error;
      throw new TollgateError(
        'TEMPORAL_UNAVAILABLE',
        `Temporal did not answer about run ${runId} within the decision's wait; nothing was sent, try again.`,
        { cause: error },
      );
    }
    if (found?.pollers !== 0) return;
    throw new TollgateError(
      'WORKER_UNAVAILABLE',
      `No worker polls task queue '${found.taskQueue}' of run ${runId}, so nothing would apply the decision; it was not sent. Start a worker for that queue, then decide again.`,
    );
  }

  /** What a failed call to Temporal means to the caller; a call cut short by shutdown is that. */
  private async failure(error: unknown, runId: string): Promise<unknown> {
    if (this.context.lifetime.aborted) return this.shutDown(error);
    const client = await this.context.client().catch(() => undefined);
    const failure = await toTollgateError(error, runId, client);
    const notFound = failure instanceof TollgateError && failure.code === 'RUN_NOT_FOUND';
    if (!notFound || !(error instanceof WorkflowNotFoundError)) return failure;
    return (await this.runExists(runId))
      ? new TollgateError(
          'TEMPORAL_UNAVAILABLE',
          `Temporal answered that run ${runId} does not exist, but it does: the server has probably just restarted. Nothing was changed; try again.`,
          { cause: error },
        )
      : failure;
  }

  /**
   * Whether Temporal knows the run, asked twice half a second apart: a server that has just
   * restarted can answer NOT_FOUND for a moment about runs that exist.
   */
  private async runExists(runId: string): Promise<boolean> {
    const handle = (await this.context.client()).workflow.getHandle(runId);
    for (let attempt = 0; attempt < 2; attempt++) {
      if (attempt > 0) await sleep(RECHECK_MS);
      try {
        await handle.describe();
        return true;
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) return true;
      }
    }
    return false;
  }

  private shutDown(cause: unknown): TollgateError {
    return new TollgateError(
      'SHUT_DOWN',
      'The Tollgate this client belongs to was shut down while the call was under way.',
      { cause },
    );
  }

  private follow(
    client: Client,
    runId: string,
    offset: number,
    live: LiveSubscription,
  ): AgentStream {
    const stream = new AgentStream(
      runId,
      offset,
      tailRun(client, runId, offset, live, this.context.lifetime),
      async () => latestPending(await this.queryPending(client, runId)),
    );
    stream.finishReason.then(
      (reason) => reason !== 'suspended' && this.context.releasePolicy(runId),
      () => undefined,
    );
    return stream;
  }

  private async requestPolicy(
    runId: string,
    policy: RunOptions['requireToolApproval'],
  ): Promise<RequestPolicy> {
    if (policy === undefined) return { kind: 'agent-default' };
    if (typeof policy === 'boolean') return { kind: policy ? 'always' : 'never' };
    if (typeof policy === 'string') return { kind: 'named', name: policy };
    return { kind: 'function', taskQueue: await this.context.holdPolicy(runId, policy) };
  }
}

function summaryOf(messages: JsonValue[]): string {
  const last = messages.at(-1) as { content?: unknown } | undefined;
  const text =
    typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
