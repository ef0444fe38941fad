import type { EvaluateGatesInput, GateVerdict } from '../common/run-types.js';
import type { ToolApprovalPolicy } from '../definitions/agent.js';
import type { AgentRegistry } from './agent-registry.js';
import { askEach } from './policies.js';

/**
 * Evaluates the policies that live with the agent: a tool's `requireApproval` predicate, or the
 * agent's default `requireToolApproval` function. Runs on the worker hosting the agent.
 */
export async function evaluateAgentPolicies(
  agents: AgentRegistry,
  named: ReadonlyMap<string, ToolApprovalPolicy>,
  input: EvaluateGatesInput,
): Promise<GateVerdict[]> {
  const agent = agents.require(input.agentId);
  const { requestContext, runId } = input;
  if (input.source === 'named') {
    // An unknown name gates every call: a typo must not switch approvals off.
    const policy = named.get(input.policyName ?? '');
    return askEach(input.calls, (call) =>
      policy
        ? () => policy({ toolName: call.toolName, args: call.args, requestContext })
        : undefined,
    );
  }
  return askEach(input.calls, (call) => {
    if (input.source === 'agent') {
      const policy = agent.defaultOptions.requireToolApproval;
      return typeof policy === 'function'
        ? () => policy({ toolName: call.toolName, args: call.args, requestContext })
        : undefined;
    }
    const tool = agent.toolsNamedBy(input.toolNaming).get(call.toolName);
    const predicate = tool?.requireApproval;
    if (!tool || typeof predicate !== 'function') return undefined;
    return () => {
      const parsed = tool.inputSchema.safeParse(call.args);
      const args = parsed.success ? parsed.data : call.args;
      return predicate(args, {
        toolName: call.toolName,
        runId,
        toolCallId: call.toolCallId,
        requestContext,
      });
    };
  });
}
