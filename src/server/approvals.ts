import { listSuspendedRuns, type SuspendedRun } from '../client/list-suspended-runs.js';
import type { ApprovalsQuery, ApprovalsResponse, PendingApproval } from '../common/http-api.js';
import type { Tollgate } from '../runtime.js';

/**
 * The approvals inbox: waiting calls of every agent (or of `agentId`), one item per call.
 * Paging counts waiting runs, as `listSuspendedRuns` does.
 */
export async function listApprovals(
  tollgate: Tollgate,
  query: ApprovalsQuery,
): Promise<ApprovalsResponse> {
  const { agentId, ...options } = query;
  const { runs, total } = await listSuspendedRuns(await tollgate.client(), agentId, options);
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
