import { describe, expect, it } from '@jest/globals';
import {
  amountProblem,
  budgetProblem,
  raiseByProblem,
  spentOf,
  tightenBudget,
} from '../../src/common/budget.js';
import { checkGovernance } from '../../src/workflows/governance.js';
import { waitingCall } from '../../src/workflows/waiting-call.js';

describe('budgets (pure, no server)', () => {
  it('counts tokens from usage and cost from the price table, per million tokens', () => {
    const usage = { inputTokens: 2_000_000, outputTokens: 500_000, totalTokens: 2_500_000 };
    const limits = { cost: { limit: 10, prices: { input: 3, output: 15 } } };
    expect(spentOf('tokens', usage, limits)).toBe(2_500_000);
    expect(spentOf('cost', usage, limits)).toBe(6 + 7.5);
  });

  it('lets a request only tighten: lower limits and warnings win, the agent keeps its prices', () => {
    const agent = {
      tokens: { limit: 100, warnAt: 80 },
      cost: { limit: 5, prices: { input: 3, output: 15 } },
    };
    expect(
      tightenBudget(agent, {
        tokens: { limit: 1000, warnAt: 50 },
        cost: { limit: 2, prices: { input: 0, output: 0 } },
      }),
    ).toEqual({
      tokens: { limit: 100, warnAt: 50 },
      cost: { limit: 2, prices: { input: 3, output: 15 } },
    });
    // A warning at or above the tightened limit is dropped: the approval request says it all.
    expect(tightenBudget(agent, { tokens: { limit: 60 } })).toMatchObject({
      tokens: { limit: 60 },
    });
    expect(tightenBudget(undefined, { tokens: { limit: 7 } })).toEqual({ tokens: { limit: 7 } });
    expect(tightenBudget(agent, undefined)).toBe(agent);
  });

  it('names the bad field of a budget and of an amount', () => {
    expect(budgetProblem({ tokens: { limit: 0 } }, 'budget')).toBe(
      'budget.tokens.limit must be a positive number, not 0.',
    );
    expect(budgetProblem({ tokens: { limit: 10, warnAt: 10 } }, 'budget')).toMatch(
      /warnAt must be a positive number below limit/,
    );
    expect(budgetProblem({ cost: { limit: 1 } }, 'budget')).toMatch(/cost.prices must be/);
    expect(budgetProblem({ dollars: 1 }, 'budget')).toMatch(/budget.dollars is unknown/);
    expect(budgetProblem({ tokens: { limit: 5 } }, 'budget')).toBeUndefined();
    expect(amountProblem(Number.POSITIVE_INFINITY)).toMatch(/positive number/);
    expect(amountProblem('5')).toMatch(/not "5"/);
    expect(amountProblem(0.5)).toBeUndefined();
  });

  it('requires a positive amount to approve a budget approval, and refuses one anywhere else', () => {
    const ref = { toolCallId: 'b1', toolName: 'tollgate:budget', args: {}, fingerprint: 'fp' };
    const budget = { metric: 'tokens' as const, used: 30, limit: 30 };
    const asked = waitingCall(ref, 'approve', { budget }, 1);
    expect(checkGovernance(asked, 'approve', {})?.code).toBe('INVALID_BUDGET_AMOUNT');
    expect(checkGovernance(asked, 'approve', { amount: 10 })).toBeUndefined();
    expect(checkGovernance(asked, 'decline', { amount: 10 })?.code).toBe('INVALID_BUDGET_AMOUNT');
    expect(checkGovernance(asked, 'decline', {})).toBeUndefined();
    const tool = waitingCall({ ...ref, toolName: 'refund' }, 'approve', {}, 2);
    expect(checkGovernance(tool, 'approve', { amount: 10 })?.code).toBe('INVALID_BUDGET_AMOUNT');
  });

  it("approving without an amount takes the agent's raiseBy when it has one; raiseBy is checked", () => {
    const ref = { toolCallId: 'b1', toolName: 'tollgate:budget', args: {}, fingerprint: 'fp' };
    const budget = { metric: 'tokens' as const, used: 30, limit: 30, raiseBy: 100 };
    const asked = waitingCall(ref, 'approve', { budget }, 1);
    expect(checkGovernance(asked, 'approve', {})).toBeUndefined();
    expect(checkGovernance(asked, 'approve', { amount: 5 })).toBeUndefined();
    expect(checkGovernance(asked, 'approve', { amount: -5 })?.code).toBe('INVALID_BUDGET_AMOUNT');
    expect(raiseByProblem({ tokens: 50_000, cost: 2 }, 'budget.raiseBy')).toBeUndefined();
    for (const bad of [{}, { tokens: 0 }, { tokenz: 5 }, 7, { cost: Infinity }]) {
      expect(raiseByProblem(bad, 'budget.raiseBy')).toMatch(/^budget.raiseBy must be like/);
    }
  });
});
