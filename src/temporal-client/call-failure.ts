import { WorkflowNotFoundError } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { TollgateError } from '../common/errors.js';
import type { AgentClientContext } from './agent-client-context.js';
import { toTollgateError } from './errors.js';

/** Pause before asking Temporal a second time whether a run it said it does not know exists. */
const RECHECK_MS = 500;

/** What a failed call to Temporal means to the caller; a call cut short by shutdown is that. */
export async function callFailure(
  context: Pick<AgentClientContext, 'client' | 'lifetime'>,
  error: unknown,
  runId: string,
): Promise<unknown> {
  if (context.lifetime.aborted) return shutDownError(error);
  const client = await context.client().catch(() => undefined);
  const failure = await toTollgateError(error, runId, client);
  const notFound = failure instanceof TollgateError && failure.code === 'RUN_NOT_FOUND';
  if (!notFound || !(error instanceof WorkflowNotFoundError)) return failure;
  return (await runExists(context, runId))
    ? new TollgateError(
        'TEMPORAL_UNAVAILABLE',
        `Temporal answered that run ${runId} does not exist, but it does: the server has probably just restarted. Nothing was changed; try again.`,
        { cause: error },
      )
    : failure;
}

/**
 * Whether Temporal knows the run, asked twice half a second apart: a server that has just
 * restarted can answer NOT_FOUND for a moment about runs that exist.
 */
async function runExists(
  context: Pick<AgentClientContext, 'client'>,
  runId: string,
): Promise<boolean> {
  const handle = (await context.client()).workflow.getHandle(runId);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (attempt > 0) await sleep(RECHECK_MS);
    try {
      await handle.describe();
      return true;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) return true;
    }
  }
  return false;
}

/** A call cut short because the Tollgate was shut down. */
export function shutDownError(cause: unknown): TollgateError {
  return new TollgateError(
    'SHUT_DOWN',
    'The Tollgate this client belongs to was shut down while the call was under way.',
    { cause },
  );
}
