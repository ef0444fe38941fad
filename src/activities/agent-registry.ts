import { TollgateError } from '../common/errors.js';
import type { Agent } from '../definitions/agent.js';

/** The agents a worker hosts, by id. */
export class AgentRegistry {
  private readonly agents = new Map<string, Agent>();

  constructor(agents: Iterable<Agent>) {
    for (const agent of agents) {
      if (this.agents.has(agent.id)) {
        throw new TollgateError(
          'INVALID_AGENT',
          `Two agents have the id "${agent.id}"; agent ids must be unique.`,
        );
      }
      this.agents.set(agent.id, agent);
    }
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
