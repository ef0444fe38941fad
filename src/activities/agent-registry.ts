import { TollgateError } from '../common/errors.js';
import type { Agent } from '../definitions/agent.js';

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

  require(agentId: string): Agent {
    const agent = this.agents.get(agentId);
    if (!agent) {
      throw new TollgateError(
        'AGENT_NOT_FOUND',
        `Agent "${agentId}" is not hosted by this worker; hosted agents: ${this.ids().join(', ') || 'none'}.`,
      );
    }
    return agent;
  }
}
