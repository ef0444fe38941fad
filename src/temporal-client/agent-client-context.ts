import type { Client } from '@temporalio/client';
import type { AgentDescription } from '../common/directory-types.js';
import type { ToolApprovalPolicy } from '../definitions/agent.js';
import type { LiveDeltaTransport } from '../live/live-transport.js';
import type { CheckedDecisionSettings } from './decision-settings.js';
import type { GrantRegistry } from './grants.js';
import type { RunFactsCache } from './run-facts.js';
import type { WorkerAvailability } from './worker-availability.js';

/** What an agent handle needs from the runtime that made it. */
export interface AgentClientContext {
  client(): Promise<Client>;
  taskQueue: string;
  bus: LiveDeltaTransport;
  /** Aborted when the runtime shuts down: streams stop following their runs. */
  lifetime: AbortSignal;
  /** Keeps a request's policy function in this process; returns the task queue that serves it. */
  holdPolicy(runId: string, policy: ToolApprovalPolicy): Promise<string>;
  releasePolicy(runId: string): void;
  /** How long decisions wait, and their deadline margin. */
  decisions: CheckedDecisionSettings;
  /** Whether a run's task queue has a worker; shared by the runtime's handles. */
  workers: WorkerAvailability;
  /** What never changes about the runs the runtime started or described; shared likewise. */
  runs: RunFactsCache;
  /** Resolves when the agent directory lists the agent; rejects with `AGENT_NOT_FOUND`. */
  requireAgent(agentId: string): Promise<void>;
  /** The agent's description in the directory (its tool names); `AGENT_NOT_FOUND` as above. */
  describeAgent(agentId: string): Promise<AgentDescription>;
  /** The grants registry of the task queue, for approvals that give a grant. */
  grants: GrantRegistry;
  /** How `generate()` and the decisions' `…Generate()` follow a run (`TollgateOptions.follow`). */
  follow?: 'history' | 'update';
  /** Runs started here record one patch marker (`TollgateOptions.patchMarkers: 'one'`). */
  oneMarker?: boolean;
  /** Whether this process hosts the agent and it does local work (`RunInput.describeLocally`). */
  describesLocally?(agentId: string): boolean;
}
