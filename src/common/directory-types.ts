/**
 * JSON-safe shapes of the agent directory: what a worker publishes about an agent it hosts,
 * what the directory entry keeps in its memo, and what a listing returns.
 */
import type { McpToolSource } from './mcp-server-grant.js';

/** The public description of an agent: no code, no instructions, no schemas. */
export interface AgentDescription {
  agentId: string;
  name: string;
  description?: string;
  /** The names the model sees for the agent's tools (their keys), sub-agent delegations excluded. */
  tools: string[];
  /** Ids of the agent's sub-agents, each its own directory entry. */
  subAgents: string[];
  /**
   * The names the model sees for the agent's delegations (`agent-<key>`); absent in entries
   * published before they were listed.
   */
  delegations?: string[];
  /**
   * The tools that come from an MCP server (`mcpTools()`), by key: the server's name and the
   * tool's name there. A release of a grant for every tool of a server reads it (docs/grants.md).
   * Absent when the agent has none, and in entries published before it was listed.
   */
  mcpTools?: Record<string, McpToolSource>;
}

/** One worker's publication of an agent, sent at `startWorker()`. */
export interface Publication {
  agent: AgentDescription;
  /** The publishing worker's identity, as it shows among the task queue's pollers. */
  worker: string;
  /** ISO time of the publication. */
  at: string;
}

/** What a directory entry holds (its workflow state, mirrored in its memo). */
export interface DirectoryEntryState {
  agent: AgentDescription;
  /** ISO time of the latest publication. */
  publishedAt: string;
  /** Workers that published the agent and have not withdrawn, by identity: when they published. */
  workers: Record<string, string>;
}

/** One agent as `listAgents()` and GET `/api/agents` report it. */
export interface AgentListing extends AgentDescription {
  /** Task queue whose workers host the agent. */
  taskQueue: string;
  /** ISO time a worker last published the agent. */
  lastPublishedAt: string;
  /**
   * Whether a worker that published the agent polls its task queue now. `false` when they all
   * shut down (at once) or stopped polling (within about two minutes of a crash); runs started
   * then wait in Temporal until a worker comes back.
   */
  available: boolean;
}
