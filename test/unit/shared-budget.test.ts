import { describe, expect, it } from '@jest/globals';
import {
  commitProblem,
  counterId,
  dayEndMs,
  dayOf,
  refOf,
  requestBudgetProblem,
  sharedAsk,
  tightenShared,
  spentAt,
  counterMemo,
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
    const once = withCommit(empty, { runId: 'r1', step: 1, usage: usage(10) }, 0);
    expect(withCommit(once, { runId: 'r1', step: 1, usage: usage(10) }, 0)).toBe(once);
    const both = withCommit(once, { runId: 'r2', step: 1, usage: usage(15) }, 0);
    expect(withCommit(both, { runId: 'r1', step: 2, usage: usage(10) }, 0).usage.totalTokens).toBe(
      35,
    );
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
    expect(() =>
      build([{ per: 'agent', period: { rolling: '2 fortnights' }, tokens: { limit: 5 } }]),
    ).toThrow(/budget.shared\[0\].period.rolling must be a positive number of ms or a duration/);
    expect(() =>
      build([{ per: 'agent', period: { rolling: '32 days' }, tokens: { limit: 5 } }]),
    ).toThrow(/period.rolling must be between 1 second and 31 days, not "32 days"/);
    expect(() => build([{ per: 'agent', period: { rolling: 500 }, tokens: { limit: 5 } }])).toThrow(
      /between 1 second and 31 days/,
    );
    expect(sharedBudgetsProblem([{ per: 'thread', tokens: { limit: 5 } }], 'b')).toBeUndefined();
    expect(
      sharedBudgetsProblem(
        [{ per: 'thread', period: { rolling: '1 day' }, tokens: { limit: 5 } }],
        'b',
      ),
    ).toBeUndefined();
    expect(() => build([{ per: 'thread', tokens: { limit: 5 } }])).not.toThrow();
  });

  it('keys a rolling window by its length, whatever the day', () => {
    const budget = { per: 'resource' as const, period: { rolling: '1 day' }, tokens: { limit: 9 } };
    const ref = refOf(budget, run, Date.parse('2025-03-09T10:00:00Z'));
    expect(ref).toEqual({ per: 'resource', key: 'acme', period: 'rolling:86400000' });
    expect(refOf(budget, run, Date.parse('2025-03-10T10:00:00Z'))).toEqual(ref);
    expect(counterId('q', 'a', ref)).toBe('tollgate-budget/q/a/resource/acme/rolling%3A86400000');
  });

  it('a rolling window drops a step once it left the window, never before', () => {
    const windowMs = 48_000; // buckets of 1 s
    const ref = { per: 'agent' as const, key: 'a', period: `rolling:${windowMs}` };
    const empty: CounterState = { ref, agentId: 'a', usage: ZERO_SPENT, steps: {} };
    const t0 = 1_000_000_500;
    const one = withCommit(empty, { runId: 'r1', step: 1, usage: usage(10) }, t0);
    const two = withCommit(one, { runId: 'r2', step: 1, usage: usage(5) }, t0 + 30_000);
    expect(two.usage.totalTokens).toBe(15);
    expect(withCommit(two, { runId: 'r1', step: 1, usage: usage(10) }, t0 + 31_000)).toBe(two);
    // Read by a run through the memo, at the reader's time.
    const memo = counterMemo(two);
    expect(spentAt(memo, t0 + 30_000).totalTokens).toBe(15);
    // r1's bucket (started at t0 - 500) still overlaps the window until t0 + 48.5 s.
    expect(spentAt(memo, t0 + windowMs).totalTokens).toBe(15);
    expect(spentAt(memo, t0 + windowMs + 499).totalTokens).toBe(15);
    expect(spentAt(memo, t0 + windowMs + 500).totalTokens).toBe(5);
    expect(spentAt(memo, t0 + 30_000 + windowMs + 1_000).totalTokens).toBe(0);
    // A commit after r1 left the window no longer carries its bucket.
    const three = withCommit(two, { runId: 'r3', step: 1, usage: usage(1) }, t0 + 50_000);
    expect(three.usage.totalTokens).toBe(6);
    expect(Object.keys(three.buckets ?? {})).toHaveLength(2);
    // A day's counter ignores the buckets: its memo's total is the day's.
    expect(spentAt({ period: '2025-03-09', usage: usage(7) }, t0).totalTokens).toBe(7);
  });

  it('a rolling counter forgets a run silent for two windows, keeping its state bounded', () => {
    const ref = { per: 'agent' as const, key: 'a', period: 'rolling:1000' };
    let state: CounterState = { ref, agentId: 'a', usage: ZERO_SPENT, steps: {} };
    for (let index = 0; index < 100; index++) {
      state = withCommit(state, { runId: `r${index}`, step: 1, usage: usage(1) }, index * 1_000);
    }
    expect(Object.keys(state.steps).length).toBeLessThanOrEqual(3);
    expect(Object.keys(state.committedAt ?? {}).length).toBeLessThanOrEqual(3);
    expect(Object.keys(state.buckets ?? {}).length).toBeLessThanOrEqual(49);
  });

  it("a request's shared budgets only tighten: the lower limit wins, the agent's period and prices stay", () => {
    const agent = [
      {
        per: 'resource' as const,
        period: { rolling: 60_000 },
        tokens: { limit: 100, warnAt: 80 },
        cost: { limit: 5, prices: { input: 3, output: 15 } },
      },
    ];
    const request = [
      {
        per: 'resource' as const,
        period: 'day' as const,
        tokens: { limit: 500 },
        cost: { limit: 2, prices: { input: 0, output: 0 } },
      },
      { per: 'thread' as const, tokens: { limit: 10 } },
    ];
    expect(tightenShared(agent, request)).toEqual([
      {
        per: 'resource',
        period: { rolling: 60_000 },
        tokens: { limit: 100, warnAt: 80 },
        cost: { limit: 2, prices: { input: 3, output: 15 } },
      },
      { per: 'thread', tokens: { limit: 10 } },
    ]);
    expect(tightenShared(agent, undefined)).toEqual(agent);
    expect(tightenShared(undefined, undefined)).toEqual([]);
    expect(
      requestBudgetProblem({ tokens: { limit: 5 }, shared: [{ per: 'x' }] }, 'budget'),
    ).toMatch(/budget.shared\[0\].per must be/);
    expect(requestBudgetProblem({ tokenz: 5 }, 'budget')).toMatch(/budget.tokenz is unknown/);
    expect(
      requestBudgetProblem({ shared: [{ per: 'agent', tokens: { limit: 5 } }] }, 'b'),
    ).toBeUndefined();
  });
});
