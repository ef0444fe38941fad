import type { Client } from '@temporalio/client';
import { TollgateError } from '../common/errors.js';
import { chunksQuery, pendingToolCallsQuery } from '../common/messages.js';
import type { PendingToolCall, RunResult } from '../common/run-types.js';
import type { Scope } from '../common/scope.js';
import { isNoWorkerReadFailure, toTollgateError } from './errors.js';
import { ScopeGuard } from './scope-guard.js';

/** Where a run stands, read from Temporal alone (its description, its query, its result). */
export interface RunStatus {
  runId: string;
  /** `running` covers both working and waiting: `pending` tells them apart. */
  state: 'running' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed-out';
  /** The calls a running run waits on; empty while it works and once it closed. */
  pending: PendingToolCall[];
  /** The run's result, once it completed. */
  result?: RunResult;
}

/**
 * How long a read waits for a worker to answer the run's query, ms: with no worker, Temporal holds
 * a query until its deadline, and a caller should hear `WORKER_UNAVAILABLE` well before that.
 */
const QUERY_DEADLINE_MS = 10_000;

const CLOSED: Record<string, RunStatus['state']> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed-out',
};

/**
 * Reads where run `runId` of `agentId` stands, held to `scope` like any read (`FORBIDDEN`, or
 * `RUN_NOT_FOUND` for a run the caller may not see). Nothing is kept between calls: the run is
 * the only record, so a restarted process answers the same.
 */
export async function runStatus(
  client: Client,
  agentId: string,
  scope: Scope | undefined,
  runId: string,
): Promise<RunStatus> {
  const guard = new ScopeGuard(agentId, scope);
  guard.request('read');
  try {
    await guard.run(client, runId);
    const handle = client.workflow.getHandle(runId);
    const { status } = await handle.describe();
    const closed = CLOSED[status.name];
    if (closed === undefined) {
      const pending = await answered(client, runId, () => handle.query(pendingToolCallsQuery));
      return { runId, state: 'running', pending };
    }
    if (closed !== 'completed') return { runId, state: closed, pending: [] };
    // The log's end the result carries is for streams (`carriedChunks`), not for this answer.
    const { lastChunks: _forStreams, ...result } = (await handle.result()) as RunResult;
    return { runId, state: closed, pending: [], result };
  } catch (error) {
    throw await toTollgateError(error, runId, client);
  }
}

/**
 * Where run `runId`'s chunk log ends now: the offset of the next chunk it logs. Held to `scope`
 * like `runStatus`.
 */
export async function logEnd(
  client: Client,
  agentId: string,
  scope: Scope | undefined,
  runId: string,
): Promise<number> {
  const guard = new ScopeGuard(agentId, scope);
  guard.request('read');
  try {
    await guard.run(client, runId);
    const handle = client.workflow.getHandle(runId);
    const slice = await answered(client, runId, () =>
      handle.query(chunksQuery, { offset: 0, limit: 0 }),
    );
    return slice.total;
  } catch (error) {
    throw await toTollgateError(error, runId, client);
  }
}

/** A query's answer, or `WORKER_UNAVAILABLE` when no worker answers for the run in time. */
async function answered<T>(client: Client, runId: string, query: () => Promise<T>): Promise<T> {
  try {
    return await client.connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, query);
  } catch (error) {
    if (!isNoWorkerReadFailure(error)) throw error;
    throw new TollgateError(
      'WORKER_UNAVAILABLE',
      `No worker answered for run ${runId}, so what it waits on cannot be read; the run waits in Temporal. Start a worker that hosts its agent, then read it again.`,
      { cause: error },
    );
  }
}
