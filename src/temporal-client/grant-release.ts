import type { Client } from '@temporalio/client';
import type { AppliedDecision, DecisionGrant } from '../common/decision-types.js';
import type { Grant, GrantRelease, RefusedRelease, ReleasedCall } from '../common/grant-types.js';
import { grantCovers } from '../common/grants.js';
import type { Scope } from '../common/scope.js';
import { explainError, mapLimited } from './batch-work.js';
import { listSuspendedRuns } from './list-suspended-runs.js';
import type { DecisionOptions } from './run-options.js';

/** Most waiting runs one release reads; the rest are counted as `skipped`. */
export const MAX_RELEASE_RUNS = 1000;

/** What a release needs: the caller's Temporal client and scope, and its decision path. */
export interface ReleaseDeps {
  client: () => Promise<Client>;
  /** The caller's limits: only runs it may see are released. */
  scope: Scope | undefined;
  /** The grant's agent: approvals go through its normal decision path (`decideToolCall`). */
  agent: {
    decideToolCall(
      kind: 'approve',
      options: DecisionOptions & { grant: DecisionGrant },
    ): Promise<AppliedDecision>;
  };
}

/**
 * Approves the waiting calls `grant` covers (docs/grant-release.md): the grant's agent, tool,
 * resource, thread, arguments and definition, in runs the caller may see, except `except` (the
 * call just approved). `covering` is what calls are matched against: the grant itself, or a
 * server grant's per-tool grants. Each approval is judged by its run like any other, in the name
 * of who gave the grant, and recorded as `grant-used`; a run that refuses is reported, never
 * skipped.
 */
export async function releaseCovered(
  deps: ReleaseDeps,
  grant: Grant,
  except?: { runId: string; toolCallId: string },
  covering: Grant[] = [grant],
): Promise<GrantRelease> {
  const client = await deps.client();
  const options = {
    resourceId: grant.resourceId,
    ...(grant.threadId !== undefined ? { threadId: grant.threadId } : {}),
    perPage: MAX_RELEASE_RUNS,
  };
  const { runs, total } = await listSuspendedRuns(client, grant.agentId, options, deps.scope);
  const now = Date.now();
  const covered = runs.flatMap((run) => {
    const where = { agentId: run.agentId, resourceId: run.resourceId, threadId: run.threadId };
    return run.toolCalls
      .filter(
        (call) =>
          call.requiresApproval &&
          call.path === undefined &&
          !(except?.runId === run.runId && except.toolCallId === call.toolCallId) &&
          covering.some((one) => grantCovers(one, where, call, now)),
      )
      .map((call) => ({ run, call }));
  });
  const decidedBy = grant.grantedBy;
  const answers = await mapLimited(covered, async ({ run, call }) => {
    const ref: ReleasedCall = {
      runId: run.runId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
    };
    try {
      await deps.agent.decideToolCall('approve', {
        runId: run.runId,
        toolCallId: call.toolCallId,
        fingerprint: call.fingerprint,
        ...(decidedBy ? { decidedBy } : {}),
        grant: { grantId: grant.grantId, expiresAt: grant.expiresAt },
      });
      return ref;
    } catch (error) {
      return { ...ref, error: explainError(error) } satisfies RefusedRelease;
    }
  });
  return {
    grantId: grant.grantId,
    released: answers.filter((a): a is ReleasedCall => !('error' in a)),
    refused: answers.filter((a): a is RefusedRelease => 'error' in a),
    skipped: Math.max(0, total - runs.length),
    unanswered: runs.filter((run) => run.unavailable).map((run) => run.runId),
  };
}
