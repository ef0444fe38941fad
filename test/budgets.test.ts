/**
 * Issue 28.1 (docs/budgets.md): a run's token budget parks it on a budget approval before the
 * next model step; approving with an amount raises its limit, declining ends it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { Agent, Tollgate, type Chunk } from '../src/index.js';
import type { TollgateClient } from '../src/http-client/index.js';
import type { ListeningServer } from '../src/server/index.js';
import { cli } from './support/cli.js';
import { budgetWork } from './support/budget-work.js';
import { chunksOf, uniqueQueue } from './support/harness.js';
import { serveOverHttp } from './support/served.js';

const TOKEN = 'budgets-token-0123456789abcdef';
const FINANCE = { id: 'fin', roles: ['finance'] };

describe('budgets: a run at its token limit waits for a budget approval', () => {
  // Each step costs 10 tokens; the fifth step replies.
  const { counts, model, work } = budgetWork(4);
  const agent = new Agent({
    id: 'budget-agent',
    model,
    tools: { work },
    budget: {
      tokens: { limit: 30, warnAt: 20 },
      approval: { approvers: ['role:finance'] },
    },
  });
  let tollgate: Tollgate;
  let client: Client;
  let server: ListeningServer;
  let remote: TollgateClient;
  const a = () => tollgate.getAgent('budget-agent');
  const events = async (runId: string) =>
    (await client.workflow.getHandle(runId).fetchHistory()).events!.length;

  beforeAll(async () => {
    tollgate = new Tollgate({ agents: { agent }, temporal: { taskQueue: uniqueQueue('budgets') } });
    await tollgate.startWorker();
    client = await tollgate.client();
    ({ server, remote } = await serveOverHttp(tollgate, TOKEN));
  });
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
  });

  /** Starts a run and reads its stream until it parks; the counters are reset first. */
  async function parked(options: Parameters<ReturnType<typeof a>['stream']>[1] = {}) {
    counts.modelSteps = 0;
    counts.executions = 0;
    const stream = await a().stream('work until done', options);
    const chunks = await chunksOf(stream);
    expect(await stream.finishReason).toBe('suspended');
    return { runId: stream.runId, chunks };
  }

  it('parks before step 4 after exactly 3 steps, warns once, refuses bad decisions without history, and goes on by the amount approved', async () => {
    const { runId, chunks } = await parked();
    expect(counts.modelSteps).toBe(3);
    expect(counts.executions).toBe(3);
    const warnings = chunks.filter((chunk) => chunk.type === 'budget-warning');
    expect(warnings.map((chunk) => chunk.payload)).toEqual([
      { metric: 'tokens', used: 20, warnAt: 20, limit: 30 },
    ]);
    const request = chunks.find((chunk) => chunk.type === 'tool-call-approval');
    expect(request?.payload).toMatchObject({
      toolCallId: 'tollgate-budget-1',
      toolName: 'tollgate:budget',
      args: { metric: 'tokens', used: 30, limit: 30 },
      budget: { metric: 'tokens', used: 30, limit: 30 },
    });
    // The inbox and the listing show it like any waiting call.
    const listed = await a().listSuspendedRuns({});
    const run = listed.runs.find((entry) => entry.runId === runId);
    expect(run?.toolCalls).toEqual([
      expect.objectContaining({
        toolCallId: 'tollgate-budget-1',
        budget: { metric: 'tokens', used: 30, limit: 30 },
        approvers: ['role:finance'],
      }),
    ]);

    const before = await events(runId);
    await expect(
      a().approveToolCall({ runId, amount: 100, decidedBy: { id: 'mallory', roles: ['dev'] } }),
    ).rejects.toMatchObject({ code: 'NOT_AN_APPROVER' });
    await expect(a().approveToolCall({ runId, decidedBy: FINANCE })).rejects.toMatchObject({
      code: 'INVALID_BUDGET_AMOUNT',
      message: expect.stringContaining('amount must be a positive number'),
    });
    await expect(
      a().approveToolCall({ runId, amount: -5, decidedBy: FINANCE }),
    ).rejects.toMatchObject({ code: 'INVALID_BUDGET_AMOUNT' });
    expect(await events(runId)).toBe(before);
    expect(counts.modelSteps).toBe(3);

    const approved = await a().approveToolCall({ runId, amount: 1000, decidedBy: FINANCE });
    const rest = await chunksOf(approved);
    expect(await approved.finishReason).toBe('stop');
    expect(await approved.text).toBe('Done.');
    expect(counts.modelSteps).toBe(5);
    expect(counts.executions).toBe(4);
    expect(rest.filter((chunk) => chunk.type === 'budget-warning')).toHaveLength(0);
    const audit = await a().getAuditTrail(runId);
    expect(audit).toContainEqual(
      expect.objectContaining({
        type: 'decision',
        toolCallId: 'tollgate-budget-1',
        decision: 'approved',
        amount: 1000,
        decidedBy: FINANCE,
      }),
    );
  }, 90_000);

  it('declining ends the run with finishReason length: zero further model steps and tool executions', async () => {
    const { runId } = await parked();
    const declined = await a().declineToolCall({ runId, decidedBy: FINANCE, reason: 'too much' });
    const rest: Chunk[] = await chunksOf(declined);
    expect(await declined.finishReason).toBe('length');
    expect(rest.some((chunk) => chunk.type === 'step-start')).toBe(false);
    expect(counts.modelSteps).toBe(3);
    expect(counts.executions).toBe(3);
    const description = await client.workflow.getHandle(runId).describe();
    expect(description.status.name).toBe('COMPLETED');
  }, 90_000);

  it('over HTTP a request tightens the budget (parks after 2 steps) and the CLI approves with --amount', async () => {
    counts.modelSteps = 0;
    counts.executions = 0;
    const stream = await remote
      .getAgent('budget-agent')
      .stream('work until done', { budget: { tokens: { limit: 15 } } });
    await chunksOf(stream);
    expect(await stream.finishReason).toBe('suspended');
    expect(counts.modelSteps).toBe(2);
    const runId = stream.runId;
    await expect(
      remote.getAgent('budget-agent').approveToolCall({ runId, amount: 0 }),
    ).rejects.toMatchObject({ code: 'INVALID_BUDGET_AMOUNT', status: 422 });
    await expect(a().stream('x', { budget: { tokens: { limit: -1 } } })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
    const flags = ['--task-queue', tollgate.taskQueue, '--as', 'fin', '--roles', 'finance'];
    const result = await cli(['approve', runId, '--amount', '1000', ...flags]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('run finished (stop)');
    expect(counts.modelSteps).toBe(5);
    expect(counts.executions).toBe(4);
  }, 90_000);
});
