import type { Client } from '@temporalio/client';
import type { FindGrantsInput, Grant } from '../common/grant-types.js';
import { liveGrants } from '../common/grants.js';
import { readGrants } from '../temporal-client/grants.js';

/**
 * The live grants that may cover a step's gated calls: the agent's, on the run's resource (and
 * thread), for one of the calls' tools. Read from the registry's memo, so a revoke or a new grant
 * counts at once. The workflow judges each call against them (arguments, expiry, approvers).
 */
export async function findGrants(client: Client, input: FindGrantsInput): Promise<Grant[]> {
  const state = await readGrants(client, input.taskQueue);
  return liveGrants(state, Date.now()).filter(
    (grant) =>
      grant.agentId === input.agentId &&
      grant.resourceId === input.resourceId &&
      (grant.threadId === undefined || grant.threadId === input.threadId) &&
      input.toolNames.includes(grant.toolName),
  );
}
