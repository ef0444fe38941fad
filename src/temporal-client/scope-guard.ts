import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { TollgateError } from '../common/errors.js';
import {
  maySeeRun,
  requireAction,
  requireAgent,
  requireResource,
  type Scope,
  type ScopeAction,
} from '../common/scope.js';
import type { DecidedBy, RunInput } from '../common/run-types.js';
import { SA_KEYS } from '../common/search-attribute-keys.js';
import { requestRights } from './request-rights.js';
import { factsOf, type RunFacts, type RunFactsCache } from './run-facts.js';
import type { RunOptions } from './run-options.js';

/** How many levels of sub-agents are walked up to find the run at the top. */
const MAX_DEPTH = 16;

/**
 * The checks an agent handle makes for its caller's scope. What the caller sent (action, agent,
 * resource) outside the scope is refused with 403 `FORBIDDEN`; a run of another agent, or one
 * the caller may not see, is `RUN_NOT_FOUND`, exactly like a run that does not exist.
 */
export class ScopeGuard {
  constructor(
    readonly agentId: string,
    readonly scope: Scope | undefined,
    /** Who the handle acts for (the HTTP token's identity): the requester of runs it starts. */
    readonly identity?: DecidedBy,
  ) {}

  /** What a run's request may do to the agent's gates, and its requester (`requestRights`). */
  startRights(opts: RunOptions): Pick<RunInput, 'requester' | 'approvalOverride'> {
    return requestRights(opts, this);
  }

  /** Refuses `action` on this agent unless the scope allows both. */
  request(action: ScopeAction): void {
    requireAction(this.scope, action);
    requireAgent(this.scope, this.agentId);
  }

  /** Refuses a named resource (a filter, `memory.resource`) outside the scope. */
  resource(resourceId: string | undefined): void {
    requireResource(this.scope, resourceId);
  }

  /**
   * Answers `RUN_NOT_FOUND` unless `runId` is a run of this agent the caller may see, judged by
   * the run's agent and resource. A sub-agent's run belongs to the resource of the run at the
   * top of its tree. These never change, so with `known` they are read once per run (from the
   * run's description, or from `startRun`) and the same refusals come from the cache.
   * Temporal's own errors (the run does not exist, the server is down) are thrown as they come,
   * for the caller to translate. `described` is the run's description when one was read.
   */
  async run(client: Client, runId: string, known?: RunFactsCache): Promise<SeenRun> {
    // Only a scope limited by resource needs the top run.
    const needsTop = this.scope?.resources !== undefined;
    let facts = known?.get(runId);
    let described: WorkflowExecutionDescription | undefined;
    if (!facts || (needsTop && !facts.top)) {
      described = await client.workflow.getHandle(runId).describe();
      facts = factsOf(described, facts?.top);
      if (needsTop && !facts.top) facts.top = await topOf(client, described);
      known?.set(runId, facts);
    }
    const { agentId } = facts;
    const resourceId = needsTop ? facts.top?.resourceId : facts.resourceId;
    if (agentId === this.agentId && maySeeRun(this.scope, { agentId, resourceId })) {
      return { facts, ...(described ? { described } : {}) };
    }
    throw runNotFound(runId, this.agentId);
  }
}

/** A run the caller may see: what never changes about it, and its description if one was read. */
export interface SeenRun {
  facts: RunFacts;
  described?: WorkflowExecutionDescription;
}

/** The resource of the run at the top of `run`'s tree, walked up (at most a few levels). */
async function topOf(
  client: Client,
  run: WorkflowExecutionDescription,
): Promise<{ resourceId: string | undefined }> {
  let top = run;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const up = top.rootExecution?.workflowId ?? top.parentExecution?.workflowId;
    if (!up || up === top.workflowId) break;
    top = await client.workflow.getHandle(up).describe();
  }
  return { resourceId: top.typedSearchAttributes.get(SA_KEYS.resourceId) };
}

/** A run the caller may not see: named only by what the caller sent. */
export function runNotFound(runId: string, agentId: string): TollgateError {
  return new TollgateError(
    'RUN_NOT_FOUND',
    `No run with id "${runId}" exists for agent "${agentId}".`,
  );
}
