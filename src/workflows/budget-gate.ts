import {
  BUDGET_TOOL_NAME,
  spentOf,
  tightenBudget,
  type BudgetAsk,
  type BudgetLimits,
  type BudgetMetric,
} from '../common/budget.js';
import { EMPTY_OBJECT_SCHEMA } from '../common/chunks.js';
import type { BudgetCarry } from '../common/continued-run.js';
import { toolCallFingerprint } from '../common/fingerprint.js';
import type { ModelToolCall, ToolManifest } from '../common/run-types.js';
import { awaitApproval } from './approval-wait.js';
import { expiredFailure } from './tool-results.js';
import type { ToolRunContext } from './tool-run-context.js';
import { SharedBudgets } from './shared-budgets.js';
import { tightenShared } from '../common/shared-budget.js';

const METRICS: readonly BudgetMetric[] = ['tokens', 'cost'];

/**
 * A run's budget (docs/budgets.md): after each model step it logs a `budget-warning` once per
 * metric past `warnAt`; before the next model step, a metric at its limit parks the run on a
 * budget approval, a waiting call that the decision machinery of tool approvals judges (approvers,
 * quorum, deadline, reminders, audit, listings). Exists only for runs whose agent or request
 * declares a budget, so every other run records exactly what it did before.
 */
export class BudgetGate {
  private readonly limits: Record<BudgetMetric, number | undefined>;
  private readonly warned: Set<BudgetMetric>;
  private asks: number;
  /** The agent's shared budgets (docs/budgets.md "Shared budgets"), when it declares any. */
  readonly shared: SharedBudgets | undefined;

  private constructor(
    private readonly context: ToolRunContext,
    private readonly budget: BudgetLimits,
    carried: BudgetCarry | undefined,
  ) {
    const shared = tightenShared(context.manifest.budget?.shared, context.input.budget?.shared);
    this.shared = shared.length ? new SharedBudgets(context, shared, carried?.shared) : undefined;
    this.limits = {
      tokens: carried?.limits.tokens ?? budget.tokens?.limit,
      cost: carried?.limits.cost ?? budget.cost?.limit,
    };
    this.warned = new Set(carried?.warned ?? []);
    this.asks = carried?.asks ?? 0;
  }

  /** The run's gate, or `undefined` when neither its agent nor its request declares a budget. */
  static of(context: ToolRunContext): BudgetGate | undefined {
    const budget = tightenBudget(context.manifest.budget?.limits, context.input.budget) ?? {};
    const shared = context.manifest.budget?.shared?.length ?? 0;
    const requested = context.input.budget?.shared?.length ?? 0;
    if (!budget.tokens && !budget.cost && shared + requested === 0) return undefined;
    return new BudgetGate(context, budget, context.input.continued?.budget);
  }

  /** What the next execution needs after a continue-as-new: raised limits, warnings given. */
  get carry(): BudgetCarry {
    const limits = Object.fromEntries(
      METRICS.filter((metric) => this.limits[metric] !== undefined).map((metric) => [
        metric,
        this.limits[metric]!,
      ]),
    );
    const shared = this.shared ? { shared: this.shared.carry } : {};
    return { limits, warned: [...this.warned], asks: this.asks, ...shared };
  }

  /** After a model step's usage is counted: one warning per metric whose `warnAt` it passed. */
  afterStep(): void {
    const { state } = this.context;
    for (const metric of METRICS) {
      const warnAt = this.budget[metric]?.warnAt;
      const limit = this.limits[metric];
      if (warnAt === undefined || limit === undefined || this.warned.has(metric)) continue;
      const used = spentOf(metric, state.usage, this.budget);
      if (used < warnAt) continue;
      this.warned.add(metric);
      state.log.emit('budget-warning', { metric, used, warnAt, limit });
    }
  }

  /**
   * Before a model step: while a metric has reached its limit (the run's own, then a shared one),
   * the run waits for a budget approval. Approved: the limit rises by the approver's amount, for
   * this run only. Resolves `true` when the step may run, `false` when a decline (or an expiry)
   * ends the run.
   */
  async beforeStep(): Promise<boolean> {
    for (;;) {
      // Without shared budgets nothing is awaited here: such runs record what they did before.
      const reached = this.reached() ?? (this.shared ? await this.shared.reached() : undefined);
      if (!reached) return true;
      const raiseBy = this.context.manifest.budget?.raiseBy?.[reached.metric];
      const ask = raiseBy === undefined ? reached : { ...reached, raiseBy };
      const raise = await this.approval(ask);
      if (raise === undefined) return false;
      if (ask.shared && this.shared) this.shared.raise({ ...reached, shared: ask.shared }, raise);
      else this.limits[ask.metric] = ask.limit + raise;
    }
  }

  private reached(): BudgetAsk | undefined {
    for (const metric of METRICS) {
      const limit = this.limits[metric];
      if (limit === undefined) continue;
      const used = spentOf(metric, this.context.state.usage, this.budget);
      if (used >= limit) return { metric, used, limit };
    }
    return undefined;
  }

  /** Waits for the budget approval of `ask`: the amount approved, or `undefined` to stop. */
  private async approval(ask: BudgetAsk): Promise<number | undefined> {
    const { state } = this.context;
    const args = { ...ask };
    const call: ModelToolCall = {
      toolCallId: `tollgate-budget-${++this.asks}`,
      toolName: BUDGET_TOOL_NAME,
      args,
      fingerprint: toolCallFingerprint(BUDGET_TOOL_NAME, args),
    };
    // The call shows as waiting before the first await, so the idle check sees it.
    const waiting = awaitApproval(this.context, call, this.pseudoTool(), { budget: ask });
    state.activity.announceIdle();
    const outcome = await waiting;
    if (outcome.kind === 'expired') {
      // An expired budget approval never raises the limit: no one said by how much.
      if (outcome.onTimeout === 'fail') throw expiredFailure(call);
      return undefined;
    }
    if (outcome.decision.kind !== 'approve') return undefined;
    return outcome.decision.amount ?? ask.raiseBy;
  }

  /** What `awaitApproval` reads of a tool: the budget's approval rules, no input to edit. */
  private pseudoTool(): ToolManifest {
    const rules = this.context.manifest.budget?.rules;
    return {
      name: BUDGET_TOOL_NAME,
      approval: 'always',
      resumeSchema: EMPTY_OBJECT_SCHEMA,
      timeoutMs: 0,
      retry: { maximumAttempts: 1, initialIntervalMs: 0 },
      ...(rules ? { rules } : {}),
    };
  }
}
