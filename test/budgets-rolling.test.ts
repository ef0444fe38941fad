/**
 * Issue 28.1, rolling windows (docs/budgets.md "Rolling windows"): a shared budget counted over
 * the last few seconds, not a calendar day. A run parks while the window holds the limit, runs
 * freely once the earlier steps have left it, and the counter closes when its window is empty.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { Agent, Tollgate } from '../src/index.js';
import { counterId } from '../src/common/shared-budget.js';
import { BUDGET_COUNTER_MEMO_KEY } from '../src/common/wire.js';
import { budgetWork } from './support/budget-work.js';
import { chunksOf, uniqueId, uniqueQueue } from './support/harness.js';

const FINANCE = { id: 'fin', roles: ['finance'] };
// Long enough that the first run's steps are still in the window when the second run checks it,
// however slow a loaded machine makes the first run and the second's start (6 s left ~1 s spare).
const WINDOW_MS = 20_000;

describe('shared budgets over a rolling window', () => {
  // Two tool steps of 10 tokens, then a reply of 15: 35 tokens a run.
  const { counts, model, work } = budgetWork(2);
  const agent = new Agent({
    id: 'rolling-budget-agent',
    model,
    tools: { work },
    budget: {
      shared: [{ per: 'resource', period: { rolling: '20 seconds' }, tokens: { limit: 30 } }],
      approval: { approvers: ['role:finance'] },
    },
  });
  let tollgate: Tollgate;
  let client: Client;
  const a = () => tollgate.getAgent('rolling-budget-agent');
  async function runOf(resource: string) {
    counts.modelSteps = 0;
    counts.executions = 0;
    const stream = await a().stream('work until done', {
      memory: { thread: uniqueId('t'), resource },
    });
    const chunks = await chunksOf(stream);
    return { runId: stream.runId, chunks, finishReason: await stream.finishReason };
  }
  const counter = (resource: string) => {
    const ref = { per: 'resource' as const, key: resource, period: `rolling:${WINDOW_MS}` };
    return client.workflow.getHandle(counterId(tollgate.taskQueue, 'rolling-budget-agent', ref));
  };

  beforeAll(async () => {
    tollgate = new Tollgate({ agents: { agent }, temporal: { taskQueue: uniqueQueue('rolling') } });
    await tollgate.startWorker();
    client = await tollgate.client();
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  it('parks a run while the window holds the limit, lets the next run through once it has passed, and closes the empty counter', async () => {
    const resource = uniqueId('acme');
    const first = await runOf(resource);
    expect(first.finishReason).toBe('stop');
    const firstDone = Date.now();
    expect(counts.modelSteps).toBe(3);

    const parked = await runOf(resource);
    expect(parked.finishReason).toBe('suspended');
    expect(counts.modelSteps).toBe(0);
    const request = parked.chunks.find((chunk) => chunk.type === 'tool-call-approval');
    expect(request?.payload).toMatchObject({
      toolName: 'tollgate:budget',
      budget: {
        metric: 'tokens',
        used: 35,
        limit: 30,
        shared: { per: 'resource', key: resource, period: `rolling:${WINDOW_MS}` },
      },
    });
    const memo = (await counter(resource).describe()).memo?.[BUDGET_COUNTER_MEMO_KEY];
    expect(memo).toMatchObject({ usage: { totalTokens: 35 }, period: `rolling:${WINDOW_MS}` });
    const declined = await a().declineToolCall({ runId: parked.runId, decidedBy: FINANCE });
    await chunksOf(declined);
    expect(await declined.finishReason).toBe('length');
    expect(counts.modelSteps).toBe(0);
    expect(counts.executions).toBe(0);

    // The first run's steps leave the window at most a 48th of it after WINDOW_MS.
    await sleep(firstDone + WINDOW_MS + WINDOW_MS / 48 + 200 - Date.now());
    const later = await runOf(resource);
    expect(later.finishReason).toBe('stop');
    expect(later.chunks.some((chunk) => chunk.type === 'tool-call-approval')).toBe(false);
    expect(counts.modelSteps).toBe(3);
    expect(counts.executions).toBe(2);

    // With no commit for a window, the counter closes; the next read counts nothing.
    const closed = await counter(resource).result();
    expect(closed.usage.totalTokens).toBe(35);
    expect((await counter(resource).describe()).status.name).toBe('COMPLETED');
  }, 150_000);
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
