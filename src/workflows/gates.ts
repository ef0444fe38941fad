import { log } from '@temporalio/workflow';
import type { ToolCallRef } from '../common/chunks.js';
import type { JsonObject } from '../common/json.js';
import type {
  AgentManifest,
  GateVerdict,
  ModelToolCall,
  RequestPolicy,
} from '../common/run-types.js';
import { evaluateRequestPolicy, evaluateToolPolicies } from './activity-calls.js';

export interface GateContext {
  runId: string;
  /** The run a request policy was registered under: the top of the delegation tree. */
  policyRunId: string;
  manifest: AgentManifest;
  policy: RequestPolicy;
  requestContext: JsonObject;
}

/**
 * Decides, once per call, whether it waits for approval (SPEC §5). Predicates run as activities,
 * so their answers are recorded in history and never re-evaluated on replay or resume. A policy
 * that throws or cannot be reached gates the call.
 */
export async function decideGates(
  context: GateContext,
  calls: ModelToolCall[],
): Promise<Map<string, boolean>> {
  const gated = new Map<string, boolean>();
  const byToolPredicate: ToolCallRef[] = [];
  const byRequest: ToolCallRef[] = [];
  const policy = effectivePolicy(context);
  for (const call of calls) {
    const tool = context.manifest.tools[call.toolName];
    const approval = tool?.approval;
    // A delegation runs nothing itself; the sub-agent's own calls are gated where they are made.
    if (tool?.delegate) gated.set(call.toolCallId, false);
    else if (approval === 'predicate') byToolPredicate.push(refOf(call));
    else if (approval === 'always' || policy === 'always') gated.set(call.toolCallId, true);
    else if (policy === 'never') gated.set(call.toolCallId, false);
    else byRequest.push(refOf(call));
  }
  const evaluations: Promise<void>[] = [];
  if (byToolPredicate.length > 0) {
    evaluations.push(
      record(gated, byToolPredicate, () =>
        evaluateToolPolicies(input(context, 'tool', byToolPredicate)),
      ),
    );
  }
  if (byRequest.length > 0) {
    const requestPolicy = context.policy;
    evaluations.push(
      record(gated, byRequest, () =>
        requestPolicy.kind === 'function'
          ? evaluateRequestPolicy(requestPolicy.taskQueue, input(context, 'request', byRequest))
          : evaluateToolPolicies(input(context, 'agent', byRequest)),
      ),
    );
  }
  await Promise.all(evaluations);
  return gated;
}

/** The request's rule, or the agent's default when the request sets none. */
function effectivePolicy(context: GateContext): 'always' | 'never' | 'function' {
  switch (context.policy.kind) {
    case 'always':
    case 'never':
      return context.policy.kind;
    case 'function':
      return 'function';
    case 'agent-default':
      return context.manifest.defaultPolicy;
  }
}

async function record(
  gated: Map<string, boolean>,
  calls: ToolCallRef[],
  evaluate: () => Promise<GateVerdict[]>,
): Promise<void> {
  let verdicts: GateVerdict[] = [];
  try {
    verdicts = await evaluate();
  } catch (error) {
    log.warn('Approval policy could not be evaluated; gating the calls', { error: String(error) });
  }
  for (const call of calls) {
    const verdict = verdicts.find((v) => v.toolCallId === call.toolCallId);
    gated.set(call.toolCallId, verdict?.gated ?? true);
  }
}

function input(context: GateContext, source: 'tool' | 'agent' | 'request', calls: ToolCallRef[]) {
  return {
    runId: source === 'request' ? context.policyRunId : context.runId,
    agentId: context.manifest.agentId,
    source,
    calls,
    requestContext: context.requestContext,
  };
}

function refOf(call: ModelToolCall): ToolCallRef {
  return { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args };
}
