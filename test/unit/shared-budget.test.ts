import { describe, expect, it } from '@jest/globals';
import {
  commitProblem,
  counterId,
  dayEndMs,
  dayOf,
  refOf,
  sharedAsk,
  sharedBudgetsProblem,
  withCommit,
  ZERO_SPENT,
  type CounterState,
} from '../../src/common/shared-budget.js';
import { Agent } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';

const usage = (totalTokens: number) => ({ inputTokens: totalTokens, outputTokens: 0, totalTokens });
const run = { agentId: 'a', threadId: 't/1', resourceId: 'acme' };

describe('shared budgets (pure, no server)', () => {
  it('counts a UTC calendar day: the key changes at midnight UTC, whatever the local zone', () => {
    const lastMs = Date.parse('2025-03-09T23:59:59.999Z');
    expect(dayOf(lastMs)).toBe('2025-03-09');
    expect(dayOf(lastMs + 1)).toBe('2025-03-10');
    expect(dayEndMs('2025-03-09')).toBe(lastMs + 1);
    // A leap day and a year's end.
    expect(dayOf(Date.parse('2024-02-29T12:00:00Z'))).toBe('2024-02-29');
    expect(dayEndMs('2024-12-31')).toBe(Date.parse('2025-01-01T00:00:00Z'));
  });

  it('keys a counter by thread, resource or agent; a run without one shares the empty key', () => {
    const now = Date.parse('2025-03-09T10:00:00Z');
    expect(refOf({ per: 'thread' }, run, now)).toEqual({
      per: 'thread',
      key: 't/1',
      period: '2025-03-09',
    });
    expect(refOf({ per: 'resource' }, run, now).key).toBe('acme');
    expect(refOf({ per: 'agent' }, run, now).key).toBe('a');
    expect(refOf({ per: 'resource' }, { agentId: 'a' }, now).key).toBe('');
    // Encoded parts: a '/' in a key cannot make two counters share an id.
    const id = counterId('q', 'a', { per: 'thread', key: 't/1', period: '2025-03-09' });
    expect(id).toBe('tollgate-budget/q/a/thread/t%2F1/2025-03-09');
    expect(id).not.toBe(counterId('q', 'a', { per: 'thread', key: 't', period: '1/2025-03-09' }));
  });

  it('counts a run step once however often its commit is retried', () => {
    const ref = { per: 'resource' as const, key: 'acme', period: '2025-03-09' };
    const empty: CounterState = { ref, agentId: 'a', usage: ZERO_SPENT, steps: {} };
    const once = withCommit(empty, { runId: 'r1', step: 1, usage: usage(10) });
    expect(withCommit(once, { runId: 'r1', step: 1, usage: usage(10) })).toBe(once);
    const both = withCommit(once, { runId: 'r2', step: 1, usage: usage(15) });
    expect(withCommit(both, { runId: 'r1', step: 2, usage: usage(10) }).usage.totalTokens).toBe(35);
    expect(commitProblem({ runId: 'r', step: 1, usage: usage(-1) })).toMatch(/zero or more/);
    expect(commitProblem({ runId: 'r', step: 1, usage: usage(3) })).toBeUndefined();
  });

  it("stops at the limit plus this run's raises, and not one token below", () => {
    const ref = { per: 'resource' as const, key: 'acme', period: '2025-03-09' };
    const budget = { per: 'resource' as const, tokens: { limit: 50 } };
    expect(sharedAsk(budget, ref, usage(49), {})).toBeUndefined();
    expect(sharedAsk(budget, ref, usage(50), {})).toEqual({
      metric: 'tokens',
      used: 50,
      limit: 50,
      shared: ref,
    });
    expect(sharedAsk(budget, ref, usage(120), { tokens: 100 })).toBeUndefined();
    expect(sharedAsk(budget, ref, usage(150), { tokens: 100 })).toMatchObject({ limit: 150 });
    // The bound: N runs each pass the check below the limit, then each commits one step.
    const inFlight = [15, 15, 10, 10];
    const worst = 49 + inFlight.reduce((sum, step) => sum + step, 0);
    expect(sharedAsk(budget, ref, usage(worst), {})).toMatchObject({ used: 99 });
    expect(worst).toBeLessThan(50 + inFlight.length * 15);
    const cost = {
      per: 'agent' as const,
      cost: { limit: 1, prices: { input: 1_000_000, output: 0 } },
    };
    expect(sharedAsk(cost, ref, usage(1), {})).toMatchObject({ metric: 'cost', used: 1, limit: 1 });
  });

  it('refuses a bad budget.shared with INVALID_AGENT naming the field', () => {
    const build = (shared: unknown) =>
      new Agent({ id: 'x', model: scriptedModel([{ text: 'hi' }]), budget: { shared } as never });
    expect(() => build([{ per: 'tenant', tokens: { limit: 5 } }])).toThrow(
      /budget.shared\[0\].per must be/,
    );
    expect(() => build([{ per: 'resource' }])).toThrow(/declares no limit/);
    expect(() =>
      build([
        { per: 'resource', tokens: { limit: 5 } },
        { per: 'resource', tokens: { limit: 9 } },
      ]),
    ).toThrow(/a second budget per resource/);
    expect(() => build([{ per: 'agent', period: 'week', tokens: { limit: 5 } }])).toThrow(
      /period must be 'day'/,
    );
    expect(() => build([{ per: 'agent', tokens: { limit: 5, warnAt: 9 } }])).toThrow(
      /warnAt must be/,
    );
    expect(sharedBudgetsProblem([{ per: 'thread', tokens: { limit: 5 } }], 'b')).toBeUndefined();
    expect(() => build([{ per: 'thread', tokens: { limit: 5 } }])).not.toThrow();
  });
});
