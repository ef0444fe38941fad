import type { AgentDescription } from '../common/directory-types.js';
import type { McpToolSource } from '../common/mcp-server-grant.js';
import { TollgateError } from '../common/errors.js';
import type { Agent } from '../definitions/agent.js';
import type { Tool } from '../definitions/create-tool.js';

/** The agents a worker hosts, by id, sub-agents included (their runs are child workflows). */
export class AgentRegistry {
  private readonly agents = new Map<string, Agent>();

  constructor(agents: Iterable<Agent>) {
    for (const agent of agents) this.add(agent);
  }

  private add(agent: Agent): void {
    const known = this.agents.get(agent.id);
    if (known === agent) return;
    if (known) {
      throw new TollgateError(
        'INVALID_AGENT',
        `Two different agents have the id "${agent.id}"; agent ids must be unique.`,
      );
    }
    this.agents.set(agent.id, agent);
    for (const subAgent of agent.subAgents.values()) this.add(subAgent);
  }

  get size(): number {
    return this.agents.size;
  }

  ids(): string[] {
    return [...this.agents.keys()];
  }

  find(agentId: string): Agent | undefined {
    return this.agents.get(agentId);
  }

  /** Whether `agentId` is hosted here and does local work: local model steps or a `local` tool. */
  doesLocalWork(agentId: string): boolean {
    const agent = this.agents.get(agentId);
    if (!agent) return false;
    const tools = [...agent.toolsNamedBy('key').values()];
    return agent.execution.modelSteps === 'local' || tools.some((tool) => tool.local === true);
  }

  /**
   * @throws TollgateError `AGENT_NOT_FOUND`; its message, which reaches the run's callers, names
   * no other agent: the hosted ones go to this worker's log.
   */
  require(agentId: string): Agent {
    const agent = this.agents.get(agentId);
    if (!agent) throw this.notHosted(agentId);
    return agent;
  }

  /** The refusal of work for an agent this worker does not host (logged with the hosted ones). */
  notHosted(agentId: string): TollgateError {
    console.warn(
      `[tollgate] a run asked this worker for agent "${agentId}", which it does not host; it hosts: ${this.ids().join(', ')}.`,
    );
    return new TollgateError(
      'AGENT_NOT_FOUND',
      `Agent "${agentId}" is not hosted by the worker that took the run; start a worker that hosts it on this task queue.`,
    );
  }

  /** The tools of every hosted agent. */
  tools(): Tool[] {
    return [...this.agents.values()].flatMap((agent) => [...agent.tools.values()]);
  }

  /** What the directory publishes about each hosted agent: names, never code. */
  descriptions(): AgentDescription[] {
    return [...this.agents.values()].map((agent) => ({
      agentId: agent.id,
      name: agent.name,
      ...(agent.description !== undefined ? { description: agent.description } : {}),
      tools: [...agent.tools.keys()],
      subAgents: [...agent.subAgents.values()].map((subAgent) => subAgent.id),
      delegations: [...agent.subAgents.keys()],
      ...mcpToolsOf(agent),
    }));
  }
}

/** Where `tool` comes from when it is an MCP server's tool (`mcpTools()`); undefined otherwise. */
export function mcpSourceOf(tool: Tool | undefined): McpToolSource | undefined {
  const mcp = (tool as { mcp?: Partial<McpToolSource> } | undefined)?.mcp;
  if (typeof mcp?.server !== 'string' || typeof mcp.name !== 'string') return undefined;
  return { server: mcp.server, name: mcp.name };
}

/** The agent's MCP tools by key, for its description; nothing when it has none. */
function mcpToolsOf(agent: Agent): Pick<AgentDescription, 'mcpTools'> {
  const sources = [...agent.tools].flatMap(([key, tool]) => {
    const source = mcpSourceOf(tool);
    return source ? [[key, source] as const] : [];
  });
  return sources.length > 0 ? { mcpTools: Object.fromEntries(sources) } : {};
}
