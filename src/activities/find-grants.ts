import type { Client } from '@temporalio/client';
import type { FindGrantsInput, Grant } from '../common/grant-types.js';
import { liveGrants } from '../common/grants.js';
import type { McpPinsState } from '../common/mcp-pins.js';
import { pinsDigest, serverOfGrant } from '../common/mcp-server-grant.js';
import { readGrants } from '../temporal-client/grants.js';
import { McpPinRegistry } from '../temporal-client/mcp-pins.js';
import type { AgentRegistry } from './agent-registry.js';

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
  const pins = new McpPinRegistry(
    async () => client,
    input.taskQueue,
    async () => 0,
  );
  for (const grant of perServer) {
    found.push(...perTool(grant, input, agents, await pins.read(serverOfGrant(grant)!)));
  }
  return found;
}

/**
 * A server grant as grants of each of the calls' tools that come from that server, each bound
 * to the tool's stored pin (the gate's definition must be it); none once the server's pins are
 * not those the grant was given for.
 */
function perTool(
  grant: Grant,
  input: FindGrantsInput,
  agents: AgentRegistry,
  pins: McpPinsState | undefined,
): Grant[] {
  if (!pins || pinsDigest(pins.pins) !== grant.definition) return [];
  const agent = agents.find(input.agentId);
  const server = serverOfGrant(grant);
  const grants: Grant[] = [];
  for (const toolName of input.toolNames) {
    const mcp = (agent?.tools.get(toolName) as { mcp?: { server: string; name: string } })?.mcp;
    const pin = mcp && mcp.server === server ? pins.pins[mcp.name] : undefined;
    if (pin) grants.push({ ...grant, toolName, definition: pin.fingerprint });
  }
  return grants;
}
