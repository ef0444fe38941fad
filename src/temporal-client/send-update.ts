import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition } from '@temporalio/common';
import { setTimeout as sleep } from 'node:timers/promises';

/** How often an update the worker never saw is sent again, and the pause before each resend. */
const RESENDS = 3;
const RESEND_PAUSE_MS = 200;

/**
 * Sends an update and waits for its result. An update that the server answers as not processed by
 * the worker never reached the run: the worker's SDK core (1.24) can drop an update that arrives
 * while it is still loading the run after a restart. Nothing was applied, so it is sent again, a
 * few times, before the failure is passed on. Any other outcome, refusals included, is final.
 */
export async function sendUpdate<Result, Args extends [unknown]>(
  client: Client,
  runId: string,
  update: UpdateDefinition<Result, Args>,
  args: Args,
  signal?: AbortSignal,
): Promise<Result> {
  const handle = client.workflow.getHandle(runId);
  for (let attempt = 0; ; attempt++) {
    try {
      return await handle.executeUpdate(update, { args });
    } catch (error) {
      if (attempt >= RESENDS || !neverReachedTheRun(error)) throw error;
      await sleep(RESEND_PAUSE_MS * (attempt + 1), undefined, signal ? { signal } : {});
    }
  }
}

/** The failure type the server gives an update that a completed workflow task left unprocessed. */
const UNPROCESSED_UPDATE = 'UnprocessedUpdate';

function neverReachedTheRun(error: unknown): boolean {
  return (
    error instanceof WorkflowUpdateFailedError &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === UNPROCESSED_UPDATE
  );
}
