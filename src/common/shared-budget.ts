/**
 * Shared budgets (docs/budgets.md "Shared budgets"): limits on what the runs of one agent spend
 * together per thread, resource or agent per UTC day or rolling window, counted by one
 * `budgetCounter` workflow per (task queue, agent, scope, key, period). JSON-safe and dependency-free: the agent's definition, the
 * workflow, the counter and the activities share it.
 */
import {
  budgetProblem,
  spentOf,
  tightenBudget,
  type BudgetAsk,
  type BudgetLimits,
  type BudgetMetric,
  type SharedBudgetRef,
  type SharedScope,
} from './budget.js';
import {
  rollingPeriod,
  rollingWindowMs,
  windowOf,
  windowProblem,
  windowUsage,
  withUsage,
  type Buckets,
} from './rolling-window.js';

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
  /**
   * How long a counter counts: one UTC calendar day (from workflow time), or a rolling window of
   * 1 second to 31 days, e.g. `{ rolling: '24 hours' }` (a duration, or ms). Default `'day'`.
   */
  period?: 'day' | { rolling: string | number };
}

/** What a counter keeps: the summed usage of its runs' steps, and each run's last step counted. */
export interface CounterState {
  ref: SharedBudgetRef;
  agentId: string;
  usage: SpentUsage;
  /** Run id → last step counted, so a retried commit never counts a step twice. */
  steps: Record<string, number>;
  /** A rolling window's usage by bucket (`rolling-window.ts`); absent for a day's counter. */
  buckets?: Buckets;
  /**
   * A rolling window's run id → workflow time of its last commit: a run silent for two windows is
   * forgotten (with its `steps` entry), so a long-lived counter's state stays bounded.
   */
  committedAt?: Record<string, number>;
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

/**
 * The counter of `budget` for a run: its key from the run; its period the window, or the UTC day
 * of workflow time.
 */
export function refOf(
  budget: SharedBudget,
  run: { agentId: string; threadId?: string | undefined; resourceId?: string | undefined },
  nowMs: number,
): SharedBudgetRef {
  const key =
    budget.per === 'agent'
      ? run.agentId
      : ((budget.per === 'thread' ? run.threadId : run.resourceId) ?? '');
  const { period } = budget;
  const counted =
    typeof period === 'object' ? rollingPeriod(rollingWindowMs(period.rolling)) : dayOf(nowMs);
  return { per: budget.per, key, period: counted };
}

/** Workflow id of a counter; every part URI-encoded, so no `/` in a name makes two share an id. */
export function counterId(taskQueue: string, agentId: string, ref: SharedBudgetRef): string {
  const parts = [taskQueue, agentId, ref.per, ref.key, ref.period].map(encodeURIComponent);
  return `tollgate-budget/${parts.join('/')}`;
}

/**
 * The counter after `commit` at workflow time `nowMs`: unchanged when the run's step was counted
 * already. A rolling window's usage is what its buckets hold at `nowMs`.
 */
export function withCommit(
  state: CounterState,
  commit: CounterCommit,
  nowMs: number,
): CounterState {
  const counted = state.steps[commit.runId];
  if (counted !== undefined && counted >= commit.step) return state;
  const steps = { ...state.steps, [commit.runId]: commit.step };
  const windowMs = windowOf(state.ref.period);
  if (windowMs !== undefined) {
    const buckets = withUsage(state.buckets ?? {}, windowMs, nowMs, commit.usage);
    const committedAt = { ...state.committedAt, [commit.runId]: nowMs };
    for (const [runId, at] of Object.entries(committedAt)) {
      if (at >= nowMs - 2 * windowMs) continue;
      delete committedAt[runId];
      delete steps[runId];
    }
    const usage = windowUsage(buckets, windowMs, nowMs);
    return { ...state, usage, steps, buckets, committedAt };
  }
  const { usage } = state;
  return {
    ...state,
    usage: {
      inputTokens: usage.inputTokens + commit.usage.inputTokens,
      outputTokens: usage.outputTokens + commit.usage.outputTokens,
      totalTokens: usage.totalTokens + commit.usage.totalTokens,
    },
    steps,
  };
}

/** What a counter shows in its memo (Temporal UI, the runs' reads): not its per-run steps. */
export interface CounterMemo {
  agentId: string;
  per: SharedScope;
  key: string;
  period: string;
  /** A day's total; for a rolling window, what it held at the last commit. */
  usage: SpentUsage;
  runs: number;
  /** A rolling window's buckets: a reader counts those still in the window at its own time. */
  buckets?: Buckets;
}

export function counterMemo(state: CounterState): CounterMemo {
  return {
    agentId: state.agentId,
    ...state.ref,
    usage: state.usage,
    runs: Object.keys(state.steps).length,
    ...(state.buckets ? { buckets: state.buckets } : {}),
  };
}

/** What a counter's memo says was spent at `nowMs`: a rolling window drops what left it since. */
export function spentAt(memo: Partial<CounterMemo> | undefined, nowMs: number): SpentUsage {
  const windowMs = memo?.period === undefined ? undefined : windowOf(memo.period);
  if (windowMs !== undefined && memo?.buckets) return windowUsage(memo.buckets, windowMs, nowMs);
  return memo?.usage ?? ZERO_SPENT;
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
    const rolling = (period as { rolling?: unknown } | undefined)?.rolling;
    if (period !== undefined && period !== 'day' && rolling === undefined) {
      return `${field}.period must be 'day' (a UTC calendar day) or { rolling: '24 hours' }, not ${JSON.stringify(period)}.`;
    }
    const windowWrong =
      rolling === undefined ? undefined : windowProblem(rolling, `${field}.period.rolling`);
    if (windowWrong) return windowWrong;
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

/**
 * A request's `budget` (docs/budgets.md): per-run limits, and shared ones that only tighten. A
 * shared entry for a `per` the agent declares lowers its limits (the agent's period and prices are
 * kept); one for a `per` it does not declare adds a counter that counts this request's runs.
 */
export interface RequestBudget extends BudgetLimits {
  shared?: SharedBudget[];
}

/** What is wrong with `value` as a request's `budget`, as one sentence naming `where`, or `undefined`. */
export function requestBudgetProblem(value: unknown, where: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return budgetProblem(value, where);
  }
  const { shared, ...limits } = value as Record<string, unknown>;
  return budgetProblem(limits, where) ?? sharedBudgetsProblem(shared, `${where}.shared`);
}

/** The shared budgets a run keeps: the agent's, each tightened by the request's of the same `per`. */
export function tightenShared(
  agent: SharedBudget[] | undefined,
  request: SharedBudget[] | undefined,
): SharedBudget[] {
  const kept = (agent ?? []).map((budget) => {
    const asked = request?.find((entry) => entry.per === budget.per);
    if (!asked) return budget;
    return { ...budget, ...tightenBudget(budget, asked), per: budget.per, period: budget.period };
  });
  const added = (request ?? []).filter((entry) => !agent?.some((own) => own.per === entry.per));
  return [...kept, ...added];
}
