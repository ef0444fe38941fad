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
   * Reads the run's agent and resource (its search attributes) and answers `RUN_NOT_FOUND`
   * unless it is a run of this agent the caller may see. A sub-agent's run belongs to the
   * resource of the run at the top of its tree. Temporal's own errors (the run does not exist,
   * the server is down) are thrown as they come, for the caller to translate. Returns the run's
   * description, so a caller that needs more of it (its task queue) need not ask again.
   */
  async run(client: Client, runId: string): Promise<WorkflowExecutionDescription> {
    const described = await client.workflow.getHandle(runId).describe();
    const agentId = described.typedSearchAttributes.get(SA_KEYS.agentId);
    let top = described;
    // Only a scope limited by resource needs the top run; walk up (at most a few levels).
    for (let depth = 0; this.scope?.resources !== undefined && depth < MAX_DEPTH; depth++) {
      const up = top.rootExecution?.workflowId ?? top.parentExecution?.workflowId;
      if (!up || up === top.workflowId) break;
      top = await client.workflow.getHandle(up).describe();
    }
    const resourceId = top.typedSearchAttributes.get(SA_KEYS.resourceId);
    if (agentId === this.agentId && maySeeRun(this.scope, { agentId, resourceId }))
      return described;
    throw runNotFound(runId, this.agentId);
  }
}

/** A run the caller may not see: named only by what the caller sent. */
export function runNotFound(runId: string, agentId: string): TollgateError {
  return new TollgateError(
    'RUN_NOT_FOUND',
    `No run with id "${runId}" exists for agent "${agentId}".`,
  );
}
