import type { Client } from '@temporalio/client';
import type { FindGrantsInput, Grant } from '../common/grant-types.js';
import { liveGrants } from '../common/grants.js';
import { grantsPerTool, serverOfGrant } from '../common/mcp-server-grant.js';
import { readGrants } from '../temporal-client/grants.js';
import { McpPinRegistry } from '../temporal-client/mcp-pins.js';
import { mcpSourceOf, type AgentRegistry } from './agent-registry.js';

/**
 * The live grants that may cover a step's gated calls: the agent's, on the run's resource (and
 * thread), for one of the calls' tools. Read from the registry's memo, so a revoke or a new grant
 * counts at once. A grant for every tool of an MCP server comes back as one grant per such tool
 * among the calls' tools. The workflow judges each call against them (arguments, expiry,
 * approvers, definition).
 */
export async function findGrants(
  client: Client,
  input: FindGrantsInput,
  agents?: AgentRegistry,
): Promise<Grant[]> {
  const state = await readGrants(client, input.taskQueue);
  const ours = liveGrants(state, Date.now()).filter(
    (grant) =>
      grant.agentId === input.agentId &&
      grant.resourceId === input.resourceId &&
      (grant.threadId === undefined || grant.threadId === input.threadId),
  );
  const found = ours.filter((grant) => input.toolNames.includes(grant.toolName));
  const perServer = ours.filter((grant) => serverOfGrant(grant) !== undefined);
  if (perServer.length === 0 || !agents) return found;
  const agent = agents.find(input.agentId);
  const pins = new McpPinRegistry(
    async () => client,
    input.taskQueue,
    async () => 0,
  );
  for (const grant of perServer) {
    const stored = await pins.read(serverOfGrant(grant)!);
    const sourceOf = (toolName: string) => mcpSourceOf(agent?.tools.get(toolName));
    found.push(...grantsPerTool(grant, input.toolNames, sourceOf, stored));
  }
  return found;
}
