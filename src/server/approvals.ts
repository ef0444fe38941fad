import { listSuspendedRuns, type SuspendedRun } from '../temporal-client/list-suspended-runs.js';
import type { ApprovalsQuery, ApprovalsResponse, PendingApproval } from '../common/http-api.js';
import { requireAction, requireAgent, requireResource, type Scope } from '../common/scope.js';
import type { Tollgate } from '../runtime.js';

/**
 * The approvals inbox: waiting calls of every agent (or of `agentId`), one item per call.
 * Paging counts waiting runs, as `listSuspendedRuns` does. Only runs the caller's scope may
 * see are listed and counted; a filter outside the scope is refused (403).
 */
export async function listApprovals(
  tollgate: Tollgate,
  query: ApprovalsQuery,
  scope: Scope | undefined,
): Promise<ApprovalsResponse> {
  const { agentId, ...options } = query;
  requireAction(scope, 'read');
  if (agentId !== undefined) requireAgent(scope, agentId);
  if (options.resourceId !== undefined) requireResource(scope, options.resourceId);
  const client = await tollgate.client();
  const { runs, total } = await listSuspendedRuns(client, agentId, options, scope);
  return { approvals: runs.flatMap(approvalsOf), total };
}

/** The run's waiting calls, as the listing's `pendingToolCalls` query answered them. */
function approvalsOf(run: SuspendedRun): PendingApproval[] {
  return run.toolCalls.map((call) => ({
    ...call,
    agentId: run.agentId,
    runId: run.runId,
    ...(run.threadId !== undefined ? { threadId: run.threadId } : {}),
    ...(run.resourceId !== undefined ? { resourceId: run.resourceId } : {}),
    requestedAt: call.requestedAt || run.suspendedAt,
  }));
}
