import { log } from '@temporalio/workflow';
import { refOf, type ToolCallRef } from '../common/chunks.js';
import type { ApprovalOverride } from '../common/approval-rules.js';
import type { GateOutcome } from '../common/audit-types.js';
import type { JsonObject } from '../common/json.js';
import type {
  AgentManifest,
  EvaluateGatesInput,
  GateVerdict,
  ModelToolCall,
  RequestPolicy,
} from '../common/run-types.js';
import { effectivePolicy, type EffectivePolicy, type PolicyFacts } from '../common/gate-policy.js';
import { isActiveTool } from '../common/active-tools.js';
import { evaluateRequestPolicy, evaluateToolPolicies } from './activity-calls.js';
import { namingOf } from './tool-naming.js';

export interface GateContext {
  runId: string;
  /** The run a request policy was registered under: the top of the delegation tree. */
  policyRunId: string;
  /** Where the agent's policies run (`RunState.agentQueue`). */
  agentQueue: string | undefined;
  manifest: AgentManifest;
  policy: RequestPolicy;
  requestContext: JsonObject;
  /** The request's policy only adds gates to the agent's default (`requestOnlyTightens`). */
  onlyTightens: boolean;
  /** The request replaces the agent's default and rules, as its caller was allowed to. */
  override?: ApprovalOverride;
  /** The request's `activeTools`: a call of any other tool is refused before any policy. */
  activeTools?: string[];
  /**
   * The run's live approval rules (docs/live-policies.md), tool → whether it waits; changed by
   * the `tollgate.livePolicy` update. They outrank every coded rule of the tool.
   */
  live?: Readonly<Record<string, boolean>>;
}

export type { GateOutcome };

/** What the run's policy rule depends on (`common/gate-policy.ts`). */
export function policyFactsOf(context: GateContext): PolicyFacts {
  return {
    defaultPolicy: context.manifest.defaultPolicy,
    policy: context.policy,
    onlyTightens: context.onlyTightens,
  };
}

/**
 * Decides, once per call, whether it waits for approval (SPEC §5). Predicates run as activities,
 * so their answers are recorded in history and never re-evaluated on replay or resume. A policy
 * that throws or cannot be reached gates the call.
 */
export async function decideGates(
  context: GateContext,
  calls: ModelToolCall[],
): Promise<Map<string, GateOutcome>> {
  const outcomes = new Map<string, GateOutcome>();
  const byToolPredicate: ToolCallRef[] = [];
  const byPolicy: ToolCallRef[] = [];
  const policy = effectivePolicy(policyFactsOf(context));
  for (const call of calls) {
    const tool = context.manifest.tools[call.toolName];
    const set = (gated: boolean, source: string) =>
      outcomes.set(call.toolCallId, { gated, source });
    // The request narrowed the run's tools: no policy, predicate or grant may let this one run.
    if (!isActiveTool(context.activeTools, call.toolName))
      outcomes.set(call.toolCallId, { gated: false, source: 'active-tools', notActive: true });
    // A delegation runs nothing itself; the sub-agent's own calls are gated where they are made.
    else if (tool?.delegate) set(false, 'delegation');
    else if (context.live?.[call.toolName] !== undefined)
      set(context.live[call.toolName]!, 'live-policy');
    else if (tool?.approval === 'predicate') byToolPredicate.push(refOf(call));
    else if (tool?.approval === 'always') set(true, 'tool');
    else if (policy.kind === 'always' || policy.kind === 'never')
      set(policy.kind === 'always', policy.source);
    else byPolicy.push(refOf(call));
  }
  const evaluations: Promise<void>[] = [];
  if (byToolPredicate.length > 0) {
    evaluations.push(
      record(outcomes, byToolPredicate, 'tool-predicate', () =>
        evaluateToolPolicies(input(context, 'tool', byToolPredicate), context.agentQueue),
      ),
    );
  }
  if (byPolicy.length > 0) {
    evaluations.push(
      record(outcomes, byPolicy, policy.source, () => evaluatePolicy(context, policy, byPolicy)),
    );
  }
  await Promise.all(evaluations);
  const override = context.override;
  if (override) for (const outcome of outcomes.values()) outcome.override = override;
  return outcomes;
}

async function evaluatePolicy(
  context: GateContext,
  policy: EffectivePolicy,
  calls: ToolCallRef[],
): Promise<GateVerdict[]> {
  if (!policy.orAgent) return evaluateRequested(context, calls);
  const [requested, agent] = await Promise.all([
    evaluateRequested(context, calls),
    evaluateToolPolicies(input(context, 'agent', calls), context.agentQueue),
  ]);
  return requested.map((verdict) => {
    const other = agent.find((v) => v.toolCallId === verdict.toolCallId);
    return verdict.gated || !other ? verdict : other;
  });
}

function evaluateRequested(context: GateContext, calls: ToolCallRef[]): Promise<GateVerdict[]> {
  const policy = context.policy;
  if (policy.kind === 'function')
    return evaluateRequestPolicy(policy.taskQueue, input(context, 'request', calls));
  if (policy.kind === 'named')
    return evaluateToolPolicies(
      { ...input(context, 'named', calls), policyName: policy.name },
      context.agentQueue,
    );
  return evaluateToolPolicies(input(context, 'agent', calls), context.agentQueue);
}

async function record(
  outcomes: Map<string, GateOutcome>,
  calls: ToolCallRef[],
  source: string,
  evaluate: () => Promise<GateVerdict[]>,
): Promise<void> {
  let verdicts: GateVerdict[] = [];
  let failure: string | undefined;
  try {
    verdicts = await evaluate();
  } catch (error) {
    failure = `policy could not be evaluated: ${String(error)}`;
    log.warn('Approval policy could not be evaluated; gating the calls', { error: String(error) });
  }
  for (const call of calls) {
    const verdict = verdicts.find((v) => v.toolCallId === call.toolCallId);
    const note = verdict?.note ?? failure;
    outcomes.set(call.toolCallId, {
      gated: verdict?.gated ?? true,
      source,
      ...(note ? { note } : {}),
      ...(verdict?.grantable === false ? { grantable: false } : {}),
      ...(verdict?.definition !== undefined ? { definition: verdict.definition } : {}),
    });
  }
}

function input(
  context: GateContext,
  source: EvaluateGatesInput['source'],
  calls: ToolCallRef[],
): EvaluateGatesInput {
  return {
    runId: source === 'request' ? context.policyRunId : context.runId,
    agentId: context.manifest.agentId,
    source,
    calls,
    requestContext: context.requestContext,
    ...namingOf(context.manifest),
  };
}
