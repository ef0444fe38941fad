import type { ApprovalRules } from '../common/approval-rules.js';
import {
  budgetProblem,
  raiseByProblem,
  type BudgetLimits,
  type RaiseBy,
} from '../common/budget.js';
import type { AgentManifest } from '../common/run-types.js';
import { TollgateError } from '../common/errors.js';
import { rollingWindowMs } from '../common/rolling-window.js';
import { sharedBudgetsProblem, type SharedBudget } from '../common/shared-budget.js';
import { toRules, type ApprovalPolicy } from './approval-policy.js';

type ManifestBudget = NonNullable<AgentManifest['budget']>;

/** An agent's `budget` (docs/budgets.md): what each of its runs may spend, and who raises it. */
export interface AgentBudget extends BudgetLimits {
  /**
   * Who may approve a budget approval, its deadline and quorum. Default: the agent's
   * `defaultOptions.approval`. A deadline that passes ends the run (`onTimeout: 'fail'` fails it);
   * an expired budget approval never raises the limit.
   */
  approval?: Omit<ApprovalPolicy, 'remind'>;
  /**
   * Limits the agent's runs share per thread, resource or agent per UTC day or rolling window
   * (docs/budgets.md "Shared budgets"), counted in Temporal. At most one per `per`. Default: none.
   */
  shared?: SharedBudget[];
  /**
   * What approving a budget approval without an `amount` raises the limit by, per metric, e.g.
   * `{ tokens: 50_000, cost: 2 }`: for approvals from places with one Approve button (the chat
   * bridge, batch approve, links). Default: none, an approval must give an amount.
   */
  raiseBy?: RaiseBy;
}

/** The agent's `budget`, checked: `INVALID_AGENT` names the bad field. */
export function checkAgentBudget(
  agentId: string,
  budget: AgentBudget | undefined,
): AgentBudget | undefined {
  if (budget === undefined) return undefined;
  const { approval, shared, raiseBy, ...limits } = budget;
  const problem =
    budgetProblem(limits, `Agent "${agentId}": budget`) ??
    sharedBudgetsProblem(shared, `Agent "${agentId}": budget.shared`) ??
    raiseByProblem(raiseBy, `Agent "${agentId}": budget.raiseBy`);
  if (problem) throw new TollgateError('INVALID_AGENT', problem);
  if (!limits.tokens && !limits.cost && !shared?.length) {
    throw new TollgateError(
      'INVALID_AGENT',
      `Agent "${agentId}": budget declares no limit; give it tokens: { limit }, cost: { limit, prices } or shared: [...].`,
    );
  }
  budgetRules(agentId, approval);
  return budget;
}

/** The manifest's form of the budget: limits and the JSON-safe approval rules. */
export function budgetManifest(
  agentId: string,
  budget: AgentBudget | undefined,
): ManifestBudget | undefined {
  if (!budget) return undefined;
  const { approval, shared, raiseBy, ...limits } = budget;
  const rules = budgetRules(agentId, approval);
  return {
    limits,
    ...(rules ? { rules } : {}),
    ...(raiseBy ? { raiseBy } : {}),
    ...(shared?.length
      ? { shared: shared.map((entry) => ({ ...entry, period: manifestPeriod(entry.period) })) }
      : {}),
  };
}

function budgetRules(
  agentId: string,
  approval: AgentBudget['approval'],
): ApprovalRules | undefined {
  return toRules(approval, `Agent "${agentId}": budget.approval`);
}

/** The manifest's period: `'day'`, or the rolling window in ms (a duration is read once, here). */
function manifestPeriod(period: SharedBudget['period']): SharedBudget['period'] {
  return typeof period === 'object' ? { rolling: rollingWindowMs(period.rolling) } : 'day';
}
