/**
 * Shared budgets (docs/budgets.md "Shared budgets"): limits on what the runs of one agent spend
 * together per thread, resource or agent per UTC day, counted by one `budgetCounter` workflow per
 * (task queue, agent, scope, key, day). JSON-safe and dependency-free: the agent's definition, the
 * workflow, the counter and the activities share it.
 */
import {
  budgetProblem,
  spentOf,
  type BudgetAsk,
  type BudgetLimits,
  type BudgetMetric,
  type SharedBudgetRef,
  type SharedScope,
} from './budget.js';

export type { SharedBudgetRef, SharedScope };

/** Token counts, as a step's `usage` (restated: chunks.ts imports budget.ts). */
export interface SpentUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** A limit the runs of an agent share (docs/budgets.md "Shared budgets"). */
export interface SharedBudget extends BudgetLimits {
  /** Whose runs share it: one counter per thread id, per resource id, or one for the agent. */
  per: SharedScope;
  /** How long a counter counts: one UTC calendar day (from workflow time). Default `'day'`. */
  period?: 'day';
}

/** What a counter keeps: the summed usage of its runs' steps, and each run's last step counted. */
export interface CounterState {
  ref: SharedBudgetRef;
  agentId: string;
  usage: SpentUsage;
  /** Run id → last step counted, so a retried commit never counts a step twice. */
  steps: Record<string, number>;
}

/** One step's usage, added to a counter after the step. */
export interface CounterCommit {
  runId: string;
  step: number;
  usage: SpentUsage;
}

/** The activities' input: the counters of one run, by workflow id, in its budgets' order. */
export interface SharedSpendInput {
  taskQueue: string;
  counters: Array<{ id: string; ref: SharedBudgetRef; agentId: string }>;
  /** Set to commit: the step whose usage is added to every counter. */
  commit?: CounterCommit;
}

export const ZERO_SPENT: SpentUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

const SCOPES: readonly SharedScope[] = ['thread', 'resource', 'agent'];
const DAY_MS = 86_400_000;

/** The UTC day of `nowMs` as `YYYY-MM-DD`: a counter's period. */
export function dayOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

/** When the UTC day `day` (`YYYY-MM-DD`) ends, in ms since the epoch. */
export function dayEndMs(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`) + DAY_MS;
}

/** The counter of `budget` for a run: its key from the run, its period from workflow time. */
export function refOf(
  budget: SharedBudget,
  run: { agentId: string; threadId?: string | undefined; resourceId?: string | undefined },
  nowMs: number,
): SharedBudgetRef {
  const key =
    budget.per === 'agent'
      ? run.agentId
      : ((budget.per === 'thread' ? run.threadId : run.resourceId) ?? '');
  return { per: budget.per, key, period: dayOf(nowMs) };
}

/** Workflow id of a counter; every part URI-encoded, so no `/` in a name makes two share an id. */
export function counterId(taskQueue: string, agentId: string, ref: SharedBudgetRef): string {
  const parts = [taskQueue, agentId, ref.per, ref.key, ref.period].map(encodeURIComponent);
  return `tollgate-budget/${parts.join('/')}`;
}

/** The counter after `commit`: unchanged when the run's step was counted already. */
export function withCommit(state: CounterState, commit: CounterCommit): CounterState {
  const counted = state.steps[commit.runId];
  if (counted !== undefined && counted >= commit.step) return state;
  const { usage } = state;
  return {
    ...state,
    usage: {
      inputTokens: usage.inputTokens + commit.usage.inputTokens,
      outputTokens: usage.outputTokens + commit.usage.outputTokens,
      totalTokens: usage.totalTokens + commit.usage.totalTokens,
    },
    steps: { ...state.steps, [commit.runId]: commit.step },
  };
}

/** What a counter shows in its memo (Temporal UI, the runs' reads): not its per-run steps. */
export function counterMemo(state: CounterState): {
  agentId: string;
  per: SharedScope;
  key: string;
  period: string;
  usage: SpentUsage;
  runs: number;
} {
  return {
    agentId: state.agentId,
    ...state.ref,
    usage: state.usage,
    runs: Object.keys(state.steps).length,
  };
}

/** What is wrong with `value` as a counter's commit, or `undefined`: the update's validator. */
export function commitProblem(value: unknown): string | undefined {
  const commit = value as Partial<CounterCommit> | undefined;
  const counts = commit?.usage as Record<string, unknown> | undefined;
  const ok =
    typeof commit?.runId === 'string' &&
    Number.isInteger(commit.step) &&
    counts !== undefined &&
    ['inputTokens', 'outputTokens', 'totalTokens'].every(
      (name) =>
        typeof counts[name] === 'number' && Number.isFinite(counts[name]) && counts[name] >= 0,
    );
  return ok
    ? undefined
    : 'A budget commit needs { runId, step, usage } with token counts of zero or more.';
}

/**
 * The budget approval a run needs before its next step, or `undefined`: the first metric whose
 * shared spend reached the limit plus what approvals gave this run (`raised`, by metric).
 */
export function sharedAsk(
  budget: SharedBudget,
  ref: SharedBudgetRef,
  spent: SpentUsage,
  raised: Partial<Record<BudgetMetric, number>>,
): (BudgetAsk & { shared: SharedBudgetRef }) | undefined {
  for (const metric of ['tokens', 'cost'] as const) {
    const declared = budget[metric]?.limit;
    if (declared === undefined) continue;
    const limit = declared + (raised[metric] ?? 0);
    const used = spentOf(metric, spent, budget);
    if (used >= limit) return { metric, used, limit, shared: ref };
  }
  return undefined;
}

/** What is wrong with `value` as an agent's `budget.shared`, as one sentence, or `undefined`. */
export function sharedBudgetsProblem(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    return `${where} must be an array like [{ per: 'resource', tokens: { limit: 100000 } }].`;
  const seen = new Set<unknown>();
  for (const [index, entry] of value.entries()) {
    const field = `${where}[${index}]`;
    if (typeof entry !== 'object' || entry === null) return `${field} must be an object.`;
    const { per, period, ...limits } = entry as Record<string, unknown>;
    if (!SCOPES.includes(per as SharedScope)) {
      return `${field}.per must be 'thread', 'resource' or 'agent', not ${JSON.stringify(per) ?? 'undefined'}.`;
    }
    if (period !== undefined && period !== 'day') {
      return `${field}.period must be 'day' (a UTC calendar day), not ${JSON.stringify(period)}.`;
    }
    // One counter per scope: two budgets on it would count one spend with two price tables.
    if (seen.has(per)) return `${field}: a second budget per ${String(per)}; merge them into one.`;
    seen.add(per);
    const problem = budgetProblem(limits, field);
    if (problem) return problem;
    if (limits.tokens === undefined && limits.cost === undefined) {
      return `${field} declares no limit; give it tokens: { limit } or cost: { limit, prices }.`;
    }
  }
  return undefined;
}
