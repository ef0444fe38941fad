/**
 * Every closed run's history must replay against the workflow code that wrote it: a history that
 * does not is a run whose next replay (a worker restart, a cache eviction, any query after the
 * cache lost it) fails with a nondeterminism error.
 */
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../../src/worker.js';
import { within } from '../support/concurrency.js';

export interface ReplayFailure {
  runId: string;
  error: string;
}

export async function replayAll(
  client: Client,
  runIds: string[],
): Promise<{ replayed: number; failures: ReplayFailure[] }> {
  const histories = [];
  for (const workflowId of runIds) {
    const history = await within(
      client.workflow.getHandle(workflowId).fetchHistory(),
      30_000,
      `the history of ${workflowId}`,
    ).catch(() => undefined);
    if (history) histories.push({ workflowId, history });
  }
  const failures: ReplayFailure[] = [];
  const results = Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories);
  for await (const result of results) {
    if (result.error) {
      const message = result.error.message;
      const nde = /Nondeterminism error: [^"]*/.exec(message)?.[0];
      failures.push({ runId: result.workflowId, error: (nde ?? message).slice(0, 300) });
    }
  }
  return { replayed: histories.length, failures };
}
