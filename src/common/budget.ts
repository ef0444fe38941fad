/**
 * Per-run budgets (docs/budgets.md): limits on a run's tokens and cost, checked before each model
 * step. JSON-safe and dependency-free: the agent's definition, the client, the HTTP schemas and
 * the workflow share it.
 */
/** A run's summed usage (`Usage` of chunks.ts, restated: chunks.ts imports this module). */
interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** A token limit. Tokens are the model steps' `usage.totalTokens`, summed over the run. */
export interface TokenBudget {
  /** Tokens the run may use before it waits for a budget approval; a positive number. */
  limit: number;
  /** A `budget-warning` chunk is logged once when the run has used this many; below `limit`. */
  warnAt?: number;
}

/** Prices of one model's tokens, in your currency per million tokens. */
export interface BudgetPrices {
  /** Per million input (prompt) tokens; zero or more. */
  input: number;
  /** Per million output (completion) tokens; zero or more. */
  output: number;
}

/** A cost limit, in the currency of `prices`. */
export interface CostBudget {
  /** Cost the run may reach before it waits for a budget approval; a positive number. */
  limit: number;
  /** A `budget-warning` chunk is logged once when the run's cost reaches this; below `limit`. */
  warnAt?: number;
  /** The price table cost is computed from: `usage.inputTokens` and `usage.outputTokens`. */
  prices: BudgetPrices;
}

/** What a run may spend; on an `Agent` and, only tightening it, on a request. */
export interface BudgetLimits {
  tokens?: TokenBudget;
  cost?: CostBudget;
}

export type BudgetMetric = keyof BudgetLimits;

/** What a shared budget's spend is kept under: the run's memory thread, its resource, its agent. */
export type SharedScope = 'thread' | 'resource' | 'agent';

/** Which counter of a shared budget (docs/budgets.md "Shared budgets") an ask or warning is about. */
// A type, not an interface: it travels inside JSON-typed approval args.
export type SharedBudgetRef = {
  per: SharedScope;
  /** The thread id, resource id or agent id; `''` for a run without a thread or resource. */
  key: string;
  /** The UTC day counted, `YYYY-MM-DD`. */
  period: string;
};

/** What a budget approval asks for: shown as the approval's `args` and as its `budget` field. */
export interface BudgetAsk {
  metric: BudgetMetric;
  /** Spent so far (tokens, or cost in the price table's currency); of a shared budget: by all its runs. */
  used: number;
  /** The run's limit that `used` reached (of a shared budget: its limit plus this run's raises). */
  limit: number;
  /** Set when a shared budget stopped the run: which counter. */
  shared?: SharedBudgetRef;
  /** What approving without an `amount` raises the limit by: the agent's `budget.raiseBy`. */
  raiseBy?: number;
}

/** An agent's `budget.raiseBy`: per metric, the raise of an approval that gives no amount. */
export type RaiseBy = Partial<Record<BudgetMetric, number>>;

/** What is wrong with `value` as `budget.raiseBy` named `where`, as one sentence, or `undefined`. */
export function raiseByProblem(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  const entries = typeof value === 'object' && value !== null ? Object.entries(value) : [];
  const bad = entries.find(
    ([metric, raise]) => !['tokens', 'cost'].includes(metric) || !positive(raise),
  );
  if (entries.length > 0 && bad === undefined) return undefined;
  return `${where} must be like { tokens: 50000, cost: 2 }: per metric a positive raise, not ${JSON.stringify(value)}.`;
}

/** The `toolName` of a budget approval: it names no tool of the agent. */
export const BUDGET_TOOL_NAME = 'tollgate:budget';

/** What `metric` of `usage` costs or counts. */
export function spentOf(metric: BudgetMetric, usage: Usage, limits: BudgetLimits): number {
  if (metric === 'tokens') return usage.totalTokens;
  const prices = limits.cost?.prices ?? { input: 0, output: 0 };
  return (usage.inputTokens * prices.input + usage.outputTokens * prices.output) / 1_000_000;
}

/**
 * What is wrong with `value` as budget limits named `where`, as one sentence, or `undefined`. A
 * limit is a positive finite number, `warnAt` lies below it, prices are zero or more.
 */
export function budgetProblem(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `${where} must be an object like { tokens: { limit: 50000 } }.`;
  }
  const budget = value as Record<string, unknown>;
  const unknown = Object.keys(budget).find((key) => key !== 'tokens' && key !== 'cost');
  if (unknown !== undefined) return `${where}.${unknown} is unknown; use tokens or cost.`;
  for (const metric of ['tokens', 'cost'] as const) {
    const limits = budget[metric] as Record<string, unknown> | undefined;
    if (limits === undefined) continue;
    const field = `${where}.${metric}`;
    if (typeof limits !== 'object' || limits === null) return `${field} must be an object.`;
    if (!positive(limits.limit)) {
      return `${field}.limit must be a positive number, not ${String(limits.limit)}.`;
    }
    if (limits.warnAt !== undefined && !(positive(limits.warnAt) && limits.warnAt < limits.limit)) {
      return `${field}.warnAt must be a positive number below limit (${limits.limit}), not ${String(limits.warnAt)}.`;
    }
    if (metric === 'cost') {
      const prices = limits.prices as Record<string, unknown> | undefined;
      if (!prices || !atLeastZero(prices.input) || !atLeastZero(prices.output)) {
        return `${field}.prices must be { input, output }, each a price per million tokens of zero or more.`;
      }
    }
  }
  return undefined;
}

/** What is wrong with `amount` as the raise of a budget approval, or `undefined`. */
export function amountProblem(amount: unknown): string | undefined {
  return positive(amount)
    ? undefined
    : `amount must be a positive number (how much to raise the run's limit by), not ${JSON.stringify(amount) ?? 'undefined'}.`;
}

/**
 * The limits a run keeps: the agent's, tightened by the request's. The lower limit and the lower
 * warning win; a metric only one of them declares is kept. A cost the agent declares keeps the
 * agent's prices, so a request cannot make its run cheaper to count.
 */
export function tightenBudget(
  agent: BudgetLimits | undefined,
  request: BudgetLimits | undefined,
): BudgetLimits | undefined {
  if (!request) return agent;
  if (!agent) return request;
  const tokens = tighter(agent.tokens, request.tokens);
  const cost = tighter(agent.cost, request.cost);
  return {
    ...(tokens ? { tokens } : {}),
    ...(cost ? { cost: { ...cost, prices: (agent.cost ?? cost).prices } } : {}),
  };
}

function tighter<T extends TokenBudget>(a: T | undefined, b: T | undefined): T | undefined {
  if (!a || !b) return a ?? b;
  const limit = Math.min(a.limit, b.limit);
  const warns = [a.warnAt, b.warnAt].filter((warn): warn is number => warn !== undefined);
  const warnAt = warns.length > 0 ? Math.min(...warns) : undefined;
  const { warnAt: _replaced, ...kept } = a;
  return { ...kept, limit, ...(warnAt !== undefined && warnAt < limit ? { warnAt } : {}) } as T;
}

function positive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function atLeastZero(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
