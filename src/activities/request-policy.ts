import type { EvaluateGatesInput, GateVerdict } from '../common/run-types.js';
import type { ToolApprovalPolicy } from '../definitions/agent.js';
import { askEach } from './policies.js';

/**
 * Request-level policy functions, held by the process that started their runs. A function cannot
 * travel through Temporal, so the run asks this process back, on this process's own task queue.
 */
export class RequestPolicyRegistry {
  private readonly policies = new Map<string, ToolApprovalPolicy>();

  register(runId: string, policy: ToolApprovalPolicy): void {
    this.policies.set(runId, policy);
  }

  forget(runId: string): void {
    this.policies.delete(runId);
  }

  get(runId: string): ToolApprovalPolicy | undefined {
    return this.policies.get(runId);
  }
}

export function createRequestPolicyActivities(registry: RequestPolicyRegistry) {
  return {
    async evaluateRequestPolicy(input: EvaluateGatesInput): Promise<GateVerdict[]> {
      const policy = registry.get(input.runId);
      return askEach(input.calls, (call) =>
        policy
          ? () =>
              policy({
                toolName: call.toolName,
                args: call.args,
                requestContext: input.requestContext,
              })
          : undefined,
      );
    },
  };
}

export type RequestPolicyActivities = ReturnType<typeof createRequestPolicyActivities>;
