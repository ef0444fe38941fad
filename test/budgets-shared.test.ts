/**
 * Issue 28.1 stage 2 (docs/budgets.md "Shared budgets"): the runs of one resource share a daily
 * token limit kept in a counter workflow; a run at it parks on the same budget approval as a
 * per-run budget, approving raises that run's own limit, declining ends it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { Agent, Tollgate, type Chunk } from '../src/index.js';
import { counterId, dayOf } from '../src/common/shared-budget.js';
import { BUDGET_COUNTER_MEMO_KEY } from '../src/common/wire.js';
import { budgetWork } from './support/budget-work.js';
import { chunksOf, uniqueId, uniqueQueue } from './support/harness.js';

const FINANCE = { id: 'fin', roles: ['finance'] };
const LIMIT = 50;

describe('shared budgets: runs of one resource share a daily token limit', () => {
  // Two tool steps of 10 tokens, then a reply of 15 (10 in, 'Done.' out): 35 tokens a run.
  const { counts, model, work } = budgetWork(2);
  const agent = new Agent({
    id: 'shared-budget-agent',
    model,
    tools: { work },
    budget: {
      shared: [{ per: 'resource', tokens: { limit: LIMIT, warnAt: 30 } }],
      approval: { approvers: ['role:finance'] },
    },
  });
  let tollgate: Tollgate;
  let client: Client;
  const a = () => tollgate.getAgent('shared-budget-agent');
  const start = (resource: string) =>
    a().stream('work until done', { memory: { thread: uniqueId('t'), resource } });
  /** Starts a run of `resource` and reads it until it parks; the counts are reset first. */
  async function parked(resource: string) {
    counts.modelSteps = 0;
    counts.executions = 0;
    const stream = await start(resource);
    const chunks = await chunksOf(stream);
    expect(await stream.finishReason).toBe('suspended');
    return { runId: stream.runId, chunks };
  }
  const counterMemo = async (resource: string) => {
    const ref = { per: 'resource' as const, key: resource, period: dayOf(Date.now()) };
    const id = counterId(tollgate.taskQueue, 'shared-budget-agent', ref);
    const { memo } = await client.workflow.getHandle(id).describe();
    return memo?.[BUDGET_COUNTER_MEMO_KEY] as { usage: { totalTokens: number }; runs: number };
  };

  beforeAll(async () => {
    tollgate = new Tollgate({ agents: { agent }, temporal: { taskQueue: uniqueQueue('shared') } });
    await tollgate.startWorker();
    client = await tollgate.client();
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  it('a second run of the resource parks once both runs spent the limit; approving goes on, declining ends the next with no step', async () => {
    const resource = uniqueId('acme');
    const first = await start(resource);
    const firstChunks = await chunksOf(first);
    expect(await first.finishReason).toBe('stop');
    expect((await first.usage).totalTokens).toBe(35);
    expect(firstChunks.filter((chunk) => chunk.type === 'budget-warning')).toHaveLength(1);

    const { runId, chunks } = await parked(resource);
    // 35 spent, step 1 (45), step 2 (55): the check before step 3 stops it.
    expect(counts.modelSteps).toBe(2);
    expect(counts.executions).toBe(2);
    const shared = { per: 'resource', key: resource, period: dayOf(Date.now()) };
    const warnings = chunks.filter((chunk) => chunk.type === 'budget-warning');
    expect(warnings.map((chunk) => chunk.payload)).toEqual([
      { metric: 'tokens', used: 35, warnAt: 30, limit: LIMIT, shared },
    ]);
    const ask = { metric: 'tokens', used: 55, limit: LIMIT, shared };
    const request = chunks.find((chunk) => chunk.type === 'tool-call-approval');
    expect(request?.payload).toMatchObject({
      toolCallId: 'tollgate-budget-1',
      toolName: 'tollgate:budget',
      args: ask,
      budget: ask,
    });
    await expect(a().approveToolCall({ runId, decidedBy: FINANCE })).rejects.toMatchObject({
      code: 'INVALID_BUDGET_AMOUNT',
    });
    const approved = await a().approveToolCall({ runId, amount: 100, decidedBy: FINANCE });
    await chunksOf(approved);
    expect(await approved.finishReason).toBe('stop');
    expect(counts.modelSteps).toBe(3);
    expect(counts.executions).toBe(2);
    expect(await counterMemo(resource)).toMatchObject({ usage: { totalTokens: 70 }, runs: 2 });

    // The raise was the second run's own: a third run still stops at the shared limit.
    const third = await parked(resource);
    expect(counts.modelSteps).toBe(0);
    expect(
      third.chunks.find((chunk) => chunk.type === 'tool-call-approval')?.payload,
    ).toMatchObject({ budget: { metric: 'tokens', used: 70, limit: LIMIT, shared } });
    const declined = await a().declineToolCall({ runId: third.runId, decidedBy: FINANCE });
    const rest: Chunk[] = await chunksOf(declined);
    expect(await declined.finishReason).toBe('length');
    expect(rest.some((chunk) => chunk.type === 'step-start')).toBe(false);
    expect(counts.modelSteps).toBe(0);
    expect(counts.executions).toBe(0);
    expect(await counterMemo(resource)).toMatchObject({ usage: { totalTokens: 70 }, runs: 2 });
  }, 120_000);

  it('another resource is not affected: its run spends its own counter', async () => {
    const resource = uniqueId('other');
    const run = await start(resource);
    const chunks = await chunksOf(run);
    expect(await run.finishReason).toBe('stop');
    expect(chunks.some((chunk) => chunk.type === 'tool-call-approval')).toBe(false);
    expect(await counterMemo(resource)).toMatchObject({ usage: { totalTokens: 35 }, runs: 1 });
  }, 60_000);

  it('four parallel runs overspend the limit by at most one step each, and each finishes or parks on a budget approval', async () => {
    const resource = uniqueId('parallel');
    const runs = await Promise.all([1, 2, 3, 4].map(() => start(resource)));
    const ends = await Promise.all(
      runs.map(async (run) => {
        const chunks = await chunksOf(run);
        return { chunks, finishReason: await run.finishReason, usage: await run.usage };
      }),
    );
    const total = ends.reduce((sum, end) => sum + end.usage.totalTokens, 0);
    const steps = ends.flatMap((end) => end.chunks.filter((chunk) => chunk.type === 'step-finish'));
    const largestStep = Math.max(
      ...steps.map(
        (chunk) => (chunk.payload as { usage: { totalTokens: number } }).usage.totalTokens,
      ),
    );
    // No step of this model costs more than 15 tokens (its reply's).
    expect(largestStep).toBeLessThanOrEqual(15);
    // Unchecked, the four would spend 140: the bound is the limit plus one step per run in flight.
    expect(total).toBeLessThanOrEqual(LIMIT + runs.length * 15);
    expect(total).toBeGreaterThanOrEqual(LIMIT);
    for (const end of ends) {
      expect(['stop', 'suspended']).toContain(end.finishReason);
      if (end.finishReason !== 'suspended') continue;
      const ask = end.chunks.find((chunk) => chunk.type === 'tool-call-approval');
      expect(ask?.payload).toMatchObject({ budget: { shared: { key: resource } } });
    }
    expect(ends.some((end) => end.finishReason === 'suspended')).toBe(true);
    // The counter holds exactly what the runs report.
    expect((await counterMemo(resource)).usage.totalTokens).toBe(total);
    for (const run of runs.filter((_, index) => ends[index]!.finishReason === 'suspended')) {
      const declined = await a().declineToolCall({ runId: run.runId, decidedBy: FINANCE });
      expect(await declined.finishReason).toBe('length');
    }
  }, 120_000);

  it("a request's shared budget tightens the agent's of the same per, adds one of another, and a bad one starts nothing", async () => {
    const resource = uniqueId('tight');
    counts.modelSteps = 0;
    counts.executions = 0;
    const thread = uniqueId('t');
    const tightened = await a().stream('work until done', {
      memory: { thread, resource },
      budget: { shared: [{ per: 'resource', tokens: { limit: 20 } }] },
    });
    const chunks = await chunksOf(tightened);
    expect(await tightened.finishReason).toBe('suspended');
    // 0 before step 1, 10 before step 2, 20 before step 3: the request's 20 stops it, not 50.
    expect(counts.modelSteps).toBe(2);
    const shared = { per: 'resource', key: resource, period: dayOf(Date.now()) };
    expect(chunks.find((chunk) => chunk.type === 'tool-call-approval')?.payload).toMatchObject({
      budget: { metric: 'tokens', used: 20, limit: 20, shared },
    });
    await a().declineToolCall({ runId: tightened.runId, decidedBy: FINANCE });

    // A per the agent does not declare: a counter for this request's runs, here per thread.
    counts.modelSteps = 0;
    const added = await a().stream('work until done', {
      memory: { thread: uniqueId('t'), resource: uniqueId('fresh') },
      budget: { shared: [{ per: 'thread', period: { rolling: '1 hour' }, tokens: { limit: 10 } }] },
    });
    const addedChunks = await chunksOf(added);
    expect(await added.finishReason).toBe('suspended');
    expect(counts.modelSteps).toBe(1);
    expect(addedChunks.find((chunk) => chunk.type === 'tool-call-approval')?.payload).toMatchObject(
      { budget: { used: 10, limit: 10, shared: { per: 'thread', period: 'rolling:3600000' } } },
    );
    await a().declineToolCall({ runId: added.runId, decidedBy: FINANCE });

    counts.modelSteps = 0;
    await expect(
      a().stream('work until done', {
        memory: { thread: uniqueId('t'), resource },
        budget: { shared: [{ per: 'tenant', tokens: { limit: 10 } }] } as never,
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringMatching(/budget.shared\[0\].per must be/),
    });
    expect(counts.modelSteps).toBe(0);
  }, 120_000);
});
