import { workflowInfo } from '@temporalio/workflow';
import { spentOf, type BudgetAsk, type BudgetMetric } from '../common/budget.js';
import type { SharedBudgetCarry } from '../common/continued-run.js';
import {
  counterId,
  refOf,
  sharedAsk,
  type SharedBudget,
  type SharedBudgetRef,
  type SharedSpendInput,
  type SpentUsage,
} from '../common/shared-budget.js';
import { sharedSpend } from './activity-calls.js';
import type { ToolRunContext } from './tool-run-context.js';

const METRICS: readonly BudgetMetric[] = ['tokens', 'cost'];

/**
 * A run's shared budgets (docs/budgets.md "Shared budgets"): before each model step it reads the
 * counters of its thread, resource or agent for today (UTC, workflow time) and stops at a limit;
 * after the step it adds the step's usage to them. Both go through activities, so the run's own
 * history records what it saw. Approving a stop raises this run's own limit on that counter only.
 */
export class SharedBudgets {
  /** Raises approved for this run, by counter and metric (`raiseKey`). */
  private readonly raised: Record<string, number>;
  /** Warnings given, by scope and metric: once per run. */
  private readonly warned: Set<string>;
  /** The counters the last read named: the step that follows it is committed to them. */
  private counters: SharedSpendInput['counters'] = [];

  constructor(
    private readonly context: ToolRunContext,
    private readonly budgets: SharedBudget[],
    carried: SharedBudgetCarry | undefined,
  ) {
    this.raised = { ...carried?.raised };
    this.warned = new Set(carried?.warned ?? []);
  }

  /** What the next execution needs after a continue-as-new. */
  get carry(): SharedBudgetCarry {
    return { raised: { ...this.raised }, warned: [...this.warned] };
  }

  /** Before a model step: the first shared limit this run has reached, or `undefined`. */
  async reached(): Promise<BudgetAsk | undefined> {
    const { input } = this.context;
    const now = Date.now();
    this.counters = this.budgets.map((budget) => {
      const ref = refOf(budget, input, now);
      return { id: counterId(this.taskQueue, input.agentId, ref), ref, agentId: input.agentId };
    });
    const spent = await sharedSpend({ taskQueue: this.taskQueue, counters: this.counters });
    this.warn(spent);
    for (const [index, budget] of this.budgets.entries()) {
      const { ref } = this.counters[index]!;
      const ask = sharedAsk(budget, ref, spent[index]!, this.raisesOf(ref));
      if (ask) return ask;
    }
    return undefined;
  }

  /** An approved stop: this run may go on until the counter reaches its limit plus `amount`. */
  raise(ask: BudgetAsk & { shared: SharedBudgetRef }, amount: number): void {
    const key = raiseKey(ask.shared, ask.metric);
    this.raised[key] = (this.raised[key] ?? 0) + amount;
  }

  /** After model step `step`: its usage is added to the counters read before it. */
  async commit(step: number, usage: SpentUsage): Promise<void> {
    if (this.counters.length === 0) return;
    const commit = { runId: this.context.state.runId, step, usage };
    this.warn(await sharedSpend({ taskQueue: this.taskQueue, counters: this.counters, commit }));
  }

  private get taskQueue(): string {
    return workflowInfo().taskQueue;
  }

  private raisesOf(ref: SharedBudgetRef): Partial<Record<BudgetMetric, number>> {
    return Object.fromEntries(
      METRICS.map((metric) => [metric, this.raised[raiseKey(ref, metric)] ?? 0]),
    );
  }

  /** One `budget-warning` per scope and metric once its shared spend reached `warnAt`. */
  private warn(spent: SpentUsage[]): void {
    for (const [index, budget] of this.budgets.entries()) {
      const { ref } = this.counters[index]!;
      for (const metric of METRICS) {
        const declared = budget[metric];
        const once = `${ref.per}/${metric}`;
        if (declared?.warnAt === undefined || this.warned.has(once)) continue;
        const used = spentOf(metric, spent[index]!, budget);
        if (used < declared.warnAt) continue;
        this.warned.add(once);
        const limit = declared.limit + (this.raisesOf(ref)[metric] ?? 0);
        this.context.state.log.emit('budget-warning', {
          metric,
          used,
          warnAt: declared.warnAt,
          limit,
          shared: ref,
        });
      }
    }
  }
}

function raiseKey(ref: SharedBudgetRef, metric: BudgetMetric): string {
  return [ref.per, ref.key, ref.period, metric].map(encodeURIComponent).join('/');
}
