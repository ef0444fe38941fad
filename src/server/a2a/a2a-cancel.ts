/**
 * `CancelTask` (docs/a2a.md): the task's run cancelled in the caller's name, answered once it
 * ended cancelled, or where it stands when it has not in time.
 */
import type { Task } from '@a2a-js/sdk';
import { TaskNotCancelableError } from '@a2a-js/sdk/errors';
import type { Client } from '@temporalio/client';
import { TollgateError } from '../../common/errors.js';
import { cancelRun } from '../../temporal-client/cancel-run.js';
import type { RunStatus } from '../../temporal-client/run-status.js';
import type { Caller } from '../auth.js';
import { taskOf } from './a2a-task.js';

/** How long `CancelTask` waits for the run to end cancelled before answering where it stands, ms. */
const CANCEL_WAIT_MS = 20_000;

/**
 * Cancels run `runId` (`decide` on it; a run that ended is `TaskNotCancelable`, one the caller
 * may not see `RUN_NOT_FOUND`) and answers the task once the run ended, or, when it has not
 * within `CANCEL_WAIT_MS` (no worker runs it), as it stands then.
 */
export async function cancelTask(
  client: Client,
  agentId: string,
  caller: Caller,
  runId: string,
  read: (runId: string) => Promise<RunStatus>,
): Promise<Task> {
  const request = { runId, requestedBy: caller.identity, reason: 'CancelTask over A2A' };
  try {
    await cancelRun(client, agentId, caller.scope, request);
  } catch (error) {
    if (!(error instanceof TollgateError) || error.code !== 'RUN_FINISHED') throw error;
    throw new TaskNotCancelableError({ message: error.message, metadata: { code: error.code } });
  }
  const ended = () => client.workflow.getHandle(runId).result();
  await client.connection.withDeadline(Date.now() + CANCEL_WAIT_MS, ended).catch(() => {
    // Ended cancelled (the result rejects), or not yet: the status below tells which.
  });
  // With no worker the cancel waits in the run's history: the task works towards it.
  const status = await read(runId).catch((error: unknown) => {
    if (error instanceof TollgateError && error.code === 'WORKER_UNAVAILABLE') return undefined;
    throw error;
  });
  return taskOf(agentId, status ?? { runId, state: 'running', pending: [] });
}
