import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { DecidedBy } from '../common/decision-types.js';
import { TollgateError } from '../common/errors.js';
import type { Scope } from '../common/scope.js';
import { toTollgateError } from './errors.js';
import { ScopeGuard } from './scope-guard.js';

/** Who asks for a run to be cancelled, and why; written into the run's history by Temporal. */
export interface CancelRunRequest {
  runId: string;
  /** The caller, recorded as the cancel request's identity (`tollgate:<id>`). */
  requestedBy: DecidedBy;
  /** Why, recorded as the request's reason. Default: none. */
  reason?: string;
}

/**
 * Asks Temporal to cancel run `runId` of `agentId`, held to `scope` like a decision (`decide`,
 * and `RUN_NOT_FOUND` for a run the caller may not see). The run's workflow answers the request:
 * every waiting call is answered as moot (its tool never runs) and the run ends `cancelled`. The
 * request is durable: with no worker, the run ends so once one picks it up. A run that has
 * already ended is refused with `RUN_FINISHED`, changing nothing.
 */
export async function cancelRun(
  client: Client,
  agentId: string,
  scope: Scope | undefined,
  request: CancelRunRequest,
): Promise<void> {
  const { runId } = request;
  const guard = new ScopeGuard(agentId, scope);
  guard.request('decide');
  try {
    const seen = await guard.run(client, runId);
    const described = seen.described ?? (await client.workflow.getHandle(runId).describe());
    if (described.status.name !== 'RUNNING') throw finished(runId, described.status.name);
    await client.workflowService.requestCancelWorkflowExecution({
      namespace: client.options.namespace,
      workflowExecution: { workflowId: runId },
      identity: `tollgate:${request.requestedBy.id}`,
      requestId: randomUUID(),
      reason: request.reason ?? '',
    });
  } catch (error) {
    throw await toTollgateError(error, runId, client);
  }
}

function finished(runId: string, status: string): TollgateError {
  return new TollgateError(
    'RUN_FINISHED',
    `Run ${runId} has already ended (${status.toLowerCase()}); there is nothing to cancel.`,
  );
}
