import type { Client } from '@temporalio/client';
import { ReplayError, Worker, type WorkflowBundle } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { ReplayCheckAnswer, ReplayCheckInput } from '../common/deployment-types.js';
import { TollgateError } from '../common/errors.js';
import { messageOf } from '../common/message-of.js';

/**
 * Replays the run's history, as it stands, with this worker's own workflow code: what the run
 * would go through on this build's workers if it were moved here (docs/deploying.md). A
 * determinism violation, or any other failure of the replay itself, is the answer, not an error.
 */
export async function checkReplay(
  client: Client,
  workflowBundle: (() => Promise<WorkflowBundle>) | undefined,
  input: ReplayCheckInput,
): Promise<ReplayCheckAnswer> {
  if (!workflowBundle) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      'This worker was built without its workflow code at hand, so it cannot replay a run; run the check on a worker started by startWorker().',
    );
  }
  const history = await client.workflow.getHandle(input.runId, input.execution).fetchHistory();
  try {
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, input.runId);
    return { ok: true };
  } catch (error) {
    if (error instanceof DeterminismViolationError || error instanceof ReplayError) {
      return { ok: false, message: messageOf(error) };
    }
    throw error;
  }
}
