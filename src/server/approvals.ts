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
    agentId: run.agentId,
    runId: run.runId,
    ...(run.threadId !== undefined ? { threadId: run.threadId } : {}),
    ...(run.resourceId !== undefined ? { resourceId: run.resourceId } : {}),
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    args: call.args,
    fingerprint: call.fingerprint,
    requiresApproval: call.requiresApproval,
    ...(call.suspendPayload !== undefined ? { suspendPayload: call.suspendPayload } : {}),
    resumeSchema: call.resumeSchema,
    requestedAt: call.requestedAt || run.suspendedAt,
    ...(call.path !== undefined ? { path: call.path } : {}),
    ...(call.expiresAt !== undefined ? { expiresAt: call.expiresAt } : {}),
    ...(call.approvers !== undefined ? { approvers: call.approvers } : {}),
    ...(call.quorum !== undefined ? { quorum: call.quorum } : {}),
    ...(call.approvals !== undefined ? { approvals: call.approvals } : {}),
  }));
}
