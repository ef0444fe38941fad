import type { Client } from '@temporalio/client';
import { pendingToolCallsQuery } from '../common/messages.js';
import type { PendingToolCall, RunResult } from '../common/run-types.js';
import type { Scope } from '../common/scope.js';
import { toTollgateError } from './errors.js';
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
      return { runId, state: 'running', pending: await handle.query(pendingToolCallsQuery) };
    }
    if (closed !== 'completed') return { runId, state: closed, pending: [] };
    return { runId, state: closed, pending: [], result: (await handle.result()) as RunResult };
  } catch (error) {
    throw await toTollgateError(error, runId, client);
  }
}
