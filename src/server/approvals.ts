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
  const perRun = await Promise.all(runs.map((run) => approvalsOf(tollgate, run)));
  return { approvals: perRun.flat(), total };
}

async function approvalsOf(tollgate: Tollgate, run: SuspendedRun): Promise<PendingApproval[]> {
  const requestedAt = await requestTimes(tollgate, run);
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
    requestedAt: requestedAt.get(call.toolCallId) ?? run.suspendedAt,
  }));
}

/**
 * When each call of the run started to wait. The listing keeps only the run's earliest time,
 * so the run is asked again; a run that closed meanwhile falls back to that earliest time.
 */
async function requestTimes(tollgate: Tollgate, run: SuspendedRun): Promise<Map<string, string>> {
  if (run.agentId === '') return new Map();
  try {
    const pending = await tollgate.getAgent(run.agentId).pendingToolCalls(run.runId);
    return new Map(pending.map((call) => [call.toolCallId, call.requestedAt]));
  } catch {
    return new Map();
  }
}
