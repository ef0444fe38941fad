import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { TollgateError } from '../common/errors.js';
import { SA_KEYS } from '../common/search-attribute-keys.js';
import { AGENT_RUN_WORKFLOW } from '../common/wire.js';
import { toTollgateError } from './errors.js';

/**
 * The run's description and its agent (its `TollgateAgentId` search attribute).
 *
 * @throws TollgateError `RUN_NOT_FOUND` when no such workflow exists or it is not an agent run.
 */
export async function describeAgentRun(
  client: Client,
  runId: string,
): Promise<{ run: WorkflowExecutionDescription; agentId: string }> {
  let run: WorkflowExecutionDescription;
  try {
    run = await client.workflow.getHandle(runId).describe();
  } catch (error) {
    throw await toTollgateError(error, runId);
  }
  const agentId = run.typedSearchAttributes.get(SA_KEYS.agentId);
  if (run.type !== AGENT_RUN_WORKFLOW || !agentId) {
    throw new TollgateError(
      'RUN_NOT_FOUND',
      `Workflow "${runId}" is a ${run.type} workflow, not a Tollgate agent run.`,
    );
  }
  return { run, agentId };
}
