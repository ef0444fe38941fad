import type { DecidedBy } from '../common/decision-types.js';
import { TollgateError } from '../common/errors.js';
import type {
  GrantRelease,
  GrantRequest,
  GrantWithDecision,
  RunGrantWithDecision,
} from '../common/grant-types.js';
import type { PendingToolCall } from '../common/run-types.js';
import type { Scope } from '../common/scope.js';
import type { GrantRegistry } from './grants.js';
import type { RunFacts } from './run-facts.js';
import { releaseCovered, type ReleaseDeps } from './grant-release.js';

/** What `approve(..., { grant })` needs to know of the run and its caller. */
export interface DecisionGrantContext {
  registry: GrantRegistry;
  agentId: string;
  run: Pick<RunFacts, 'resourceId' | 'threadId'>;
  runId: string;
  /** Reads the run's waiting calls, in request order. */
  pending: () => Promise<PendingToolCall[]>;
  toolCallId?: string;
  scope: Scope | undefined;
  decidedBy?: DecidedBy;
}

/**
 * The grant an approval gives (docs/grants.md), checked in full before the decision is sent, so
 * a bad grant changes nothing: the call's tool, on the run's thread or resource, in the
 * approver's name. `undefined` when no call waits as named: the decision is then refused itself.
 *
 * @throws TollgateError `INVALID_GRANT`, `FORBIDDEN`.
 */
export async function grantForDecision(
  context: DecisionGrantContext,
  options: GrantWithDecision,
): Promise<GrantRequest | undefined> {
  const { scope: kind, matchArgs, release } = (options ?? {}) as Partial<GrantWithDecision>;
  if (kind !== 'thread' && kind !== 'resource') {
    throw invalid(`grant.scope must be 'thread' or 'resource', not ${JSON.stringify(kind)}.`);
  }
  if (matchArgs !== undefined && typeof matchArgs !== 'boolean') {
    throw invalid('grant.matchArgs must be true or false when given.');
  }
  if (release !== undefined && typeof release !== 'boolean') {
    throw invalid('grant.release must be true or false when given.');
  }
  const approvals = (await context.pending()).filter((call) => call.requiresApproval);
  const call =
    context.toolCallId === undefined
      ? approvals.at(-1)
      : approvals.find((c) => c.toolCallId === context.toolCallId);
  if (!call) return undefined;
  if (call.path !== undefined) {
    throw invalid(
      `Tool call ${call.toolCallId} waits in a sub-agent's run; grant its tool to that agent with grants.create.`,
    );
  }
  const { resourceId, threadId } = context.run;
  if (resourceId === undefined) {
    throw invalid(`Run ${context.runId} has no memory resource, so no grant can name it.`);
  }
  if (kind === 'thread' && threadId === undefined) {
    throw invalid(`Run ${context.runId} has no memory thread; grant for its resource.`);
  }
  return context.registry.prepare(
    {
      agentId: context.agentId,
      toolName: call.toolName,
      resourceId,
      ...(kind === 'thread' ? { threadId } : {}),
      for: options.for,
      ...(matchArgs ? { args: call.args } : {}),
      // The approver was shown this definition of the tool: the grant covers it only.
      ...(call.definition !== undefined ? { definition: call.definition } : {}),
    },
    {
      ...(context.scope ? { scope: context.scope } : {}),
      ...(context.decidedBy ? { identity: context.decidedBy } : {}),
    },
  );
}

/**
 * Gives the grant an approval carried, then (unless `release: false`) approves the other calls
 * waiting that it covers (docs/grant-release.md), except the one just approved.
 */
export async function giveAndRelease(
  deps: ReleaseDeps,
  registry: GrantRegistry,
  request: GrantRequest,
  options: GrantWithDecision,
  approved: { runId: string; toolCallId: string },
): Promise<GrantRelease | undefined> {
  const grant = await registry.add(request);
  if (options.release === false) return undefined;
  return releaseCovered(deps, grant, approved);
}

/**
 * An approval's grant: one for this run only goes with the decision itself (`runGrant`), any
 * other is a standing grant, given after the decision applies.
 */
export function splitGrant<T extends { grant?: GrantWithDecision | RunGrantWithDecision }>(
  options: T,
): { standing?: GrantWithDecision; decision: Omit<T, 'grant'> & { runGrant?: true } } {
  const { grant, ...decision } = options;
  if (grant?.scope === 'run') return { decision: { ...decision, runGrant: true } };
  return grant === undefined ? { decision } : { standing: grant as GrantWithDecision, decision };
}

function invalid(message: string): TollgateError {
  return new TollgateError('INVALID_GRANT', message);
}
