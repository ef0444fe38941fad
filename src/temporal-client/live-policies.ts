import type { Client } from '@temporalio/client';
import type { DecidedBy } from '../common/decision-types.js';
import { TollgateError } from '../common/errors.js';
import type { ReleasedCall } from '../common/grant-types.js';
import {
  changeProblem,
  EMPTY_LIVE_POLICIES,
  type LivePoliciesState,
  type LivePolicyChange,
  type LivePolicyResult,
  type LiveToolRule,
} from '../common/live-policy.js';
import { livePolicyChangeUpdate, runPolicyUpdate } from '../common/messages.js';
import { mayUseAgent, requireAction, requireAgent } from '../common/scope.js';
import {
  LIVE_POLICIES_MEMO_KEY,
  LIVE_POLICIES_WORKFLOW,
  livePoliciesRegistryId,
  SEARCH_ATTRIBUTES,
  AGENT_RUN_WORKFLOW,
} from '../common/wire.js';
import type { AgentDirectory } from './agent-directory.js';
import { explainError, mapLimited } from './batch-work.js';
import { toTollgateError } from './errors.js';
import type { GrantCaller } from './grants.js';
import { readRegistryMemo, startRegistry, type RegistryRef } from './registry-memo.js';
import { sendUpdate } from './send-update.js';

/** Most open runs one change tells; the rest are counted as `skipped`. */
export const MAX_TOLD_RUNS = 1000;
/** How long one run has to take a change before it is reported as refused, ms. */
const RUN_WAIT_MS = 10_000;
/**
 * How long visibility may lag a run's start, ms: a change lists the runs again this long after it
 * was stored, so a run that started just before it, unlisted at first, is told too.
 */
export const VISIBILITY_LAG_MS = 3_000;
/** Clock skew allowed between this process and the server when comparing start times, ms. */
const SKEW_MS = 1_000;

/**
 * Live approval rules of one task queue (docs/live-policies.md), kept in Temporal only: one open
 * `livePoliciesRegistry` workflow, its state in its memo. A change is an operator's: it needs
 * `admin` on the agent and every resource, since it applies to all of the agent's runs.
 */
export class LivePolicies {
  constructor(
    private readonly client: () => Promise<Client>,
    readonly taskQueue: string,
    private readonly directory: AgentDirectory,
    /** Workers that polled the task queue lately (`Tollgate.workerPollers`). */
    private readonly pollers: () => Promise<number>,
  ) {}

  /**
   * Stores the change, then tells every open run of the agent: a rule that no longer asks
   * releases the calls of the tool waiting now (`policy-release`), one that asks gates the
   * calls not yet made; nothing decided is reopened. New runs start with the stored rules.
   *
   * @throws TollgateError `FORBIDDEN` (no `admin`, or a scope limited to resources),
   * `INVALID_OPTIONS` (a bad change, a tool the agent lacks), `AGENT_NOT_FOUND`, `WORKER_UNAVAILABLE`.
   */
  async set(change: LivePolicyChange, caller: GrantCaller = {}): Promise<LivePolicyResult> {
    requireAction(caller.scope, 'admin');
    const problem = changeProblem(change);
    if (problem) throw new TollgateError('INVALID_OPTIONS', problem);
    requireAgent(caller.scope, change.agentId);
    if (caller.scope?.resources !== undefined) {
      throw new TollgateError(
        'FORBIDDEN',
        `A live rule applies to every resource of agent "${change.agentId}"; use a token not limited to resources.`,
      );
    }
    const { tools } = await this.directory.description(change.agentId);
    if (!tools.includes(change.toolName)) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        `Agent "${change.agentId}" has no tool "${change.toolName}"; its tools: ${tools.join(', ') || 'none'}.`,
      );
    }
    if ((await this.pollers()) === 0) {
      throw new TollgateError(
        'WORKER_UNAVAILABLE',
        `No worker polls task queue '${this.taskQueue}', whose live policies registry would store the change; nothing was sent.`,
      );
    }
    const client = await this.client();
    const changedBy = caller.identity;
    const state = await this.store(client, { ...change, ...(changedBy ? { changedBy } : {}) });
    const storedAt = Date.now();
    const rule = state.rules.find(
      (r) => r.agentId === change.agentId && r.toolName === change.toolName,
    );
    const told = await this.tellRuns(client, change, caller, storedAt);
    return { ...(rule ? { rule } : {}), ...told };
  }

  /** The rules in force the caller may see (`read`), of one agent if given. */
  async list(filter: { agentId?: string } = {}, caller: GrantCaller = {}): Promise<LiveToolRule[]> {
    requireAction(caller.scope, 'read');
    const state = await readLivePolicies(await this.client(), this.taskQueue);
    return state.rules.filter(
      (rule) =>
        mayUseAgent(caller.scope, rule.agentId) &&
        (filter.agentId === undefined || rule.agentId === filter.agentId),
    );
  }

  private async store(client: Client, change: LivePolicyChange & { changedBy?: DecidedBy }) {
    const id = livePoliciesRegistryId(this.taskQueue);
    const summary = `Live approval policies of task queue ${this.taskQueue}`;
    await startRegistry(client, livePoliciesRef(this.taskQueue), this.taskQueue, summary);
    try {
      return await sendUpdate(client, id, livePolicyChangeUpdate, [change]);
    } catch (error) {
      throw await toTollgateError(error, id);
    }
  }

  /**
   * Tells each open run of the agent (up to `MAX_TOLD_RUNS`), each within `RUN_WAIT_MS`; then,
   * once visibility has caught up, the runs that started before the rule was stored and were not
   * listed the first time (a later run read the rule when it started).
   */
  private async tellRuns(
    client: Client,
    change: LivePolicyChange,
    caller: GrantCaller,
    storedAt: number,
  ) {
    const agent = SEARCH_ATTRIBUTES.agentId.name;
    const query = `WorkflowType = '${AGENT_RUN_WORKFLOW}' AND ExecutionStatus = 'Running' AND ${agent} = '${change.agentId.replaceAll("'", "\\'")}'`;
    const first = await openRuns(client, query, MAX_TOLD_RUNS);
    const told = await this.tell(client, change, caller, first.runIds);
    await new Promise((resolve) => setTimeout(resolve, VISIBILITY_LAG_MS));
    const since = new Date(storedAt - VISIBILITY_LAG_MS - SKEW_MS).toISOString();
    const recent = await openRuns(client, `${query} AND StartTime >= '${since}'`, MAX_TOLD_RUNS);
    const late = recent.runs
      .filter((run) => !first.runIds.includes(run.runId) && run.startMs <= storedAt + SKEW_MS)
      .map((run) => run.runId);
    const lateTold = await this.tell(client, change, caller, late);
    return {
      released: [...told.released, ...lateTold.released],
      refused: [...told.refused, ...lateTold.refused],
      skipped: first.total - first.runIds.length,
    };
  }

  /** Sends the change to each of `runIds`; answers what they released and which refused. */
  private async tell(
    client: Client,
    change: LivePolicyChange,
    caller: GrantCaller,
    runIds: string[],
  ) {
    const { toolName, requireApproval, reason } = change;
    const message = {
      toolName,
      requireApproval,
      ...(caller.identity ? { changedBy: caller.identity } : {}),
      ...(reason !== undefined ? { reason } : {}),
    };
    type Answer = { runId: string } & (
      | { released: Array<{ toolCallId: string; toolName: string }> }
      | { error: { code: string; message: string } }
    );
    const answers = await mapLimited(runIds, async (runId): Promise<Answer> => {
      try {
        const signal = AbortSignal.timeout(RUN_WAIT_MS);
        const applied = await sendUpdate(client, runId, runPolicyUpdate, [message], signal);
        return { runId, released: applied.released };
      } catch (error) {
        return { runId, error: explainError(await toTollgateError(error, runId)) };
      }
    });
    const released: ReleasedCall[] = answers.flatMap((a) =>
      'released' in a ? a.released.map((call) => ({ runId: a.runId, ...call })) : [],
    );
    const refused = answers.flatMap((a) =>
      'error' in a ? [{ runId: a.runId, error: a.error }] : [],
    );
    return { released, refused };
  }
}

/** The open runs a visibility query lists: their ids (the first `most`), start times and count. */
async function openRuns(client: Client, query: string, most: number) {
  const runs: Array<{ runId: string; startMs: number }> = [];
  let total = 0;
  for await (const run of client.workflow.list({ query })) {
    total++;
    if (runs.length < most) runs.push({ runId: run.workflowId, startMs: run.startTime.getTime() });
  }
  return { runs, runIds: runs.map((run) => run.runId), total };
}

/** The registry's state from its memo; empty when there is none yet. */
export function readLivePolicies(client: Client, taskQueue: string): Promise<LivePoliciesState> {
  return readRegistryMemo(client, livePoliciesRef(taskQueue));
}

function livePoliciesRef(taskQueue: string): RegistryRef<LivePoliciesState> {
  return {
    workflowType: LIVE_POLICIES_WORKFLOW,
    workflowId: livePoliciesRegistryId(taskQueue),
    memoKey: LIVE_POLICIES_MEMO_KEY,
    empty: EMPTY_LIVE_POLICIES,
  };
}
