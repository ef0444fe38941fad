/**
 * Which rule gates a run's calls when no tool rule of its own applies: the request's rule combined
 * with the agent's default. Pure and sandbox-safe, so the workflow's gates (`workflows/gates.ts`)
 * and a local stretch (`common/stretches.ts`) read it the same way.
 */
import type { AgentManifest, RequestPolicy } from './run-types.js';

/** What the rule depends on: the agent's default, the request's rule, and whether it only tightens. */
export interface PolicyFacts {
  defaultPolicy: AgentManifest['defaultPolicy'];
  policy: RequestPolicy;
  /** The request's policy only adds gates to the agent's default (`requestOnlyTightens`). */
  onlyTightens: boolean;
}

/**
 * `evaluate`: a policy must be asked (an activity); `orAgent`: the agent's default policy function
 * is asked too, and either gating gates the call.
 */
export type EffectivePolicy = {
  kind: 'always' | 'never' | 'evaluate';
  source: string;
  orAgent?: boolean;
};

/**
 * The request's rule combined with the agent's default: a request that may only tighten adds
 * gates (a call is gated when either says so); an override, or a run started before the
 * `REQUEST_TIGHTENS_PATCH`, replaces the default when it sets a rule.
 */
export function effectivePolicy(facts: PolicyFacts): EffectivePolicy {
  const requested = requestedPolicy(facts);
  if (!facts.onlyTightens || facts.policy.kind === 'agent-default') return requested;
  const fallback = facts.defaultPolicy;
  if (requested.kind === 'always' || fallback === 'always')
    return { kind: 'always', source: requested.kind === 'always' ? 'request' : 'agent' };
  // A request without the right to loosen cannot take the agent's gates away.
  if (requested.kind === 'never') return agentDefault(facts);
  return fallback === 'function'
    ? { ...requested, source: `${requested.source}+agent-function`, orAgent: true }
    : requested;
}

function agentDefault(facts: PolicyFacts): EffectivePolicy {
  const fallback = facts.defaultPolicy;
  return fallback === 'function'
    ? { kind: 'evaluate', source: 'agent-function' }
    : { kind: fallback, source: 'agent' };
}

/** The request's rule, or the agent's default when the request sets none. */
function requestedPolicy(facts: PolicyFacts): EffectivePolicy {
  const policy = facts.policy;
  switch (policy.kind) {
    case 'always':
    case 'never':
      return { kind: policy.kind, source: 'request' };
    case 'function':
      return { kind: 'evaluate', source: 'request-function' };
    case 'named':
      return { kind: 'evaluate', source: `named:${policy.name}` };
    case 'agent-default':
      return agentDefault(facts);
  }
}
