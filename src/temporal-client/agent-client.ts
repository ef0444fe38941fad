import type { Client } from '@temporalio/client';
import type { JsonValue } from '../common/json.js';
import type {
  AppliedDecision,
  AuditEntry,
  DecidedBy,
  DecisionKind,
  HandedOff,
  PendingToolCall,
} from '../common/run-types.js';
import { auditQuery } from '../common/messages.js';
import type { Scope, ScopeAction } from '../common/scope.js';
import type { AgentClientContext } from './agent-client-context.js';
import { collectOutput, type AgentOutput } from '../stream/agent-output.js';
import type { AgentStream } from '../stream/agent-stream.js';
import { applyDecision, type DecisionExtras } from './apply-decision.js';
import { autoResume } from './auto-resume.js';
import { callFailure, shutDownError } from './call-failure.js';
import {
  listSuspendedRuns,
  type ListSuspendedRunsOptions,
  type SuspendedRuns,
} from './list-suspended-runs.js';
import * as approvalTarget from './send-tool-approval.js';
import type { ForkListing, ForkRequest } from '../common/fork-types.js';
import { forkFor, forksSeenBy } from './fork-caller.js';
import {
  checkDecision,
  checkId,
  checkObserve,
  checkRunInput,
  type ApproveOptions,
  type DecisionOptions,
  type Messages,
  type ResumeOptions,
  type RunOptions,
} from './run-options.js';
import { LiveSubscription } from './live-subscription.js';
import type { LogReading } from './finish-points.js';
import { followRun, queryPendingCalls } from './follow-run.js';
import { ScopeGuard, type SeenRun } from './scope-guard.js';
import { giveAndRelease, grantForDecision, splitGrant } from './grant-with-decision.js';
import { checkActiveTools, startRun } from './start-run.js';
import { checkHandOffOptions, sendHandOff, type HandOffOptions } from './hand-off.js';

export type { AgentClientContext } from './agent-client-context.js';

/**
 * Starts and steers runs of one agent by id (SPEC §3). Needs no agent code: any process
 * connected to the namespace can use it. With a `scope`, every call is held to it (docs/http-api.md
 * "Scopes"); a run of another agent is `RUN_NOT_FOUND` either way.
 */
export class AgentClient {
  private readonly guard: ScopeGuard;

  constructor(
    readonly agentId: string,
    private readonly context: AgentClientContext,
    scope?: Scope,
    identity?: DecidedBy,
  ) {
    this.guard = new ScopeGuard(agentId, scope, identity);
  }

  /**
   * Starts a run and streams it until it finishes or waits for a decision.
   *
   * @throws TollgateError `AGENT_NOT_FOUND`, starting nothing, when no worker hosting the agent
   * ever published it on this task queue (see `Tollgate.listAgents()`).
   */
  async stream(messages: Messages, options?: RunOptions): Promise<AgentStream> {
    return this.start(messages, options, 'each-change');
  }

  private async start(
    messages: Messages,
    options: RunOptions | undefined,
    reading: LogReading,
  ): Promise<AgentStream> {
    const opts = options ?? {};
    const initial = checkRunInput(messages, opts);
    this.guard.request('start');
    this.guard.resource(opts.memory?.resource);
    const rights = this.guard.startRights(opts);
    await this.context.requireAgent(this.agentId);
    if (opts.activeTools) await checkActiveTools(this.context, this.agentId, opts.activeTools);
    const client = await this.context.client();
    const resumed = await autoResume(this.agentId, client, this.context, initial, opts);
    if (resumed) {
      const { runId, applied, live } = resumed;
      return followRun(this.context, client, { runId, offset: applied.offset, live }, reading);
    }
    const launch = { rights, reading };
    const started = await startRun(this.context, this.agentId, client, initial, opts, launch);
    return followRun(this.context, client, { ...started, offset: 0 }, reading, started.follower);
  }

  /** Starts a run and waits until it finishes or waits for a decision. */
  async generate(messages: Messages, options?: RunOptions): Promise<AgentOutput> {
    return collectOutput(await this.start(messages, options, 'at-ends'));
  }

  /** With `grant`, also gives a grant for the call's tool (docs/grants.md) and releases it. */
  async approveToolCall(options: ApproveOptions): Promise<AgentStream> {
    return this.approve(options, 'each-change');
  }

  private async approve(options: ApproveOptions, reading: LogReading): Promise<AgentStream> {
    const { standing, decision } = splitGrant(options);
    return this.decide('approve', checkDecision(decision, 'approveToolCall'), reading, standing);
  }

  async declineToolCall(options: Omit<DecisionOptions, 'fingerprint'>): Promise<AgentStream> {
    return this.decline(options, 'each-change');
  }

  private async decline(options: Omit<DecisionOptions, 'fingerprint'>, reading: LogReading) {
    return this.decide('decline', checkDecision(options, 'declineToolCall'), reading);
  }

  /** Resumes a call parked by its tool's `suspend()`; the tool runs again with `resumeData`. */
  async resumeStream(resumeData: JsonValue, options: ResumeOptions): Promise<AgentStream> {
    return this.resume(resumeData, options, 'each-change');
  }

  private async resume(resumeData: JsonValue, options: ResumeOptions, reading: LogReading) {
    const checked = { ...checkDecision(options, 'resumeStream'), resumeData };
    return this.decide('resume', checked, reading);
  }

  async approveToolCallGenerate(options: ApproveOptions): Promise<AgentOutput> {
    return collectOutput(await this.approve(options, 'at-ends'));
  }

  async declineToolCallGenerate(
    options: Omit<DecisionOptions, 'fingerprint'>,
  ): Promise<AgentOutput> {
    return collectOutput(await this.decline(options, 'at-ends'));
  }

  /**
   * One approve, decline or resume (`resumeData`), answering what the run recorded, without
   * following the run: for batch decisions, signed links and MCP callbacks (`channel: 'link'`,
   * so audited) and grant releases (`grant`).
   */
  async decideToolCall(
    kind: 'approve' | 'decline' | 'resume',
    options: DecisionOptions & DecisionExtras & { resumeData?: JsonValue },
  ): Promise<AppliedDecision> {
    const checked = checkDecision(options, kind === 'resume' ? 'resumeStream' : `${kind}ToolCall`);
    const { client, run } = await this.ownRun('decide', checked.runId);
    return applyDecision(this.context, this.agentId, client, kind, checked, run);
  }

  /** Hands a waiting approval to other approvers, with a note (docs/hand-off.md). */
  async handOffToolCall(options: HandOffOptions): Promise<HandedOff> {
    const checked = checkHandOffOptions(options);
    const { client, run } = await this.ownRun('decide', checked.runId);
    return sendHandOff(this.context, this.agentId, client, checked, run);
  }

  async resumeGenerate(resumeData: JsonValue, options: ResumeOptions): Promise<AgentOutput> {
    return collectOutput(await this.resume(resumeData, options, 'at-ends'));
  }

  /** Replays a run's chunks from `offset` (default 0) until its next finish, from any process. */
  async observe(options: { runId: string; offset?: number }): Promise<AgentStream> {
    const { runId, offset } = checkObserve(options);
    const { client } = await this.ownRun('read', runId);
    const live = new LiveSubscription(this.context.bus, runId);
    return followRun(this.context, client, { runId, offset, live });
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
      throw await callFailure(this.context, error, runId);
    }
  }

  /**
   * Starts a new run of this agent from run `request.runId`'s conversation at the end of step
   * `request.step` (docs/fork.md), streamed; the original is only read (`read` on it, `start`).
   *
   * @throws TollgateError `INVALID_FORK_STEP` (a step the run cannot be forked at), `RUN_NOT_FOUND`,
   * `AGENT_NOT_FOUND` (no worker hosts the agent), `INVALID_OPTIONS`.
   */
  async fork(request: ForkRequest): Promise<AgentStream> {
    const started = await forkFor(this.context, this.guard, request);
    return followRun(this.context, started.client, { ...started, offset: 0 });
  }

  /** The forks of a run this caller may see, newest first (found by `TollgateForkedFrom`). */
  async listForks(runId: string): Promise<ForkListing[]> {
    return forksSeenBy(this.context, this.guard, runId);
  }

  /** The calls a run waits on, read from the run itself. */
  async pendingToolCalls(runId: string): Promise<PendingToolCall[]> {
    checkId(runId, 'runId');
    const { client } = await this.ownRun('read', runId);
    return queryPendingCalls(this.context, client, runId);
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
      throw this.context.lifetime.aborted ? shutDownError(error) : error;
    }
  }

  /**
   * The client, once the caller may do `action` here and `runId` is a run of this agent it may
   * see (else `FORBIDDEN` or `RUN_NOT_FOUND`); with what that check knows of the run.
   */
  private async ownRun(
    action: ScopeAction,
    runId: string,
  ): Promise<{ client: Client; run: SeenRun }> {
    this.guard.request(action);
    const client = await this.context.client();
    try {
      return { client, run: await this.guard.run(client, runId, this.context.runs) };
    } catch (error) {
      throw await callFailure(this.context, error, runId);
    }
  }

  /**
   * Decides the call that waits in a conversation, found by thread and resource: approve or
   * decline an approval gate, or resume a suspended call with `resumeData`.
   */
  async sendToolApproval(
    options: approvalTarget.SendToolApprovalOptions,
  ): Promise<{ accepted: true; runId: string; toolCallId: string }> {
    approvalTarget.checkSendToolApproval(options);
    this.guard.request('decide');
    const found = await this.listVisible({
      threadId: options.threadId,
      resourceId: options.resourceId,
      perPage: 1000,
    });
    const target = approvalTarget.pickApprovalTarget(found, options);
    const client = await this.context.client();
    // The listing held the caller to its scope; a run this runtime knows needs no describe.
    const facts = this.context.runs.get(target.runId);
    const decision = approvalTarget.decisionFor(target, options);
    const { context, agentId } = this;
    await applyDecision(context, agentId, client, target.kind, decision, facts && { facts });
    return { accepted: true, runId: target.runId, toolCallId: target.toolCallId };
  }

  private async decide(
    kind: DecisionKind,
    options: DecisionOptions & { resumeData?: JsonValue },
    reading: LogReading,
    grant?: Exclude<ApproveOptions['grant'], { scope: 'run' }>,
  ): Promise<AgentStream> {
    const { client, run } = await this.ownRun('decide', options.runId);
    const { grants } = this.context;
    const pending = () => queryPendingCalls(this.context, client, options.runId);
    const facts = { ...options, registry: grants, agentId: this.agentId, run: run.facts, pending };
    // Checked in full first: a bad grant refuses the decision too, changing nothing.
    const granted = grant && (await grantForDecision({ ...facts, scope: this.guard.scope }, grant));
    const live = new LiveSubscription(this.context.bus, options.runId);
    let applied: AppliedDecision;
    let release: AgentStream['grantRelease'];
    try {
      applied = await applyDecision(this.context, this.agentId, client, kind, options, run);
      const deps = { client: this.context.client, scope: this.guard.scope, agent: this };
      const approved = { runId: options.runId, toolCallId: applied.toolCallId };
      if (granted) release = await giveAndRelease(deps, grants, granted, grant!, approved);
    } catch (error) {
      live.close();
      throw error;
    }
    const followed = { runId: options.runId, offset: applied.offset, live };
    const stream = followRun(this.context, client, followed, reading, 'ask');
    if (release) stream.grantRelease = release;
    return stream;
  }
}
