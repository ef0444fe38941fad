import type { JsonValue } from '../common/json.js';
import type {
  AgentManifest,
  EvaluateGatesInput,
  ExecuteToolInput,
  ModelStepInput,
} from '../common/run-types.js';
import type { LiveBus } from '../live/live-bus.js';
import type { AgentRegistry } from './agent-registry.js';
import { ConversationCache } from './conversation-cache.js';
import { describeAgent } from './describe-agent.js';
import { runTool } from './execute-tool.js';
import { classified } from './failures.js';
import { whileHeartbeating } from './keep-alive.js';
import { runModelStep } from './model-step.js';
import { evaluateAgentPolicies } from './tool-policies.js';

export interface ActivityDeps {
  agents: AgentRegistry;
  bus: LiveBus;
  readConversation(runId: string, upTo: number): Promise<JsonValue[]>;
}

/** The activities of an agent worker, bound to the agents it hosts. */
export function createActivities(deps: ActivityDeps) {
  const conversations = new ConversationCache();
  return {
    describeAgent: (agentId: string): Promise<AgentManifest> =>
      classified(async () => describeAgent(deps.agents.require(agentId))),
    modelStep: (input: ModelStepInput) =>
      classified(() => whileHeartbeating(() => runModelStep({ ...deps, conversations }, input))),
    executeTool: (input: ExecuteToolInput) =>
      classified(() => whileHeartbeating(() => runTool(deps.agents, input))),
    evaluateToolPolicies: (input: EvaluateGatesInput) =>
      classified(() => evaluateAgentPolicies(deps.agents, input)),
  };
}

export type TollgateActivities = ReturnType<typeof createActivities>;
