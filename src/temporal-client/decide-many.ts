import { TollgateError } from '../common/errors.js';
import {
  MAX_BATCH_DECISIONS,
  type BatchDecision,
  type BatchDecisionResult,
} from '../common/batch-decisions.js';
import type { DecidedBy } from '../common/run-types.js';
import type { AgentClient } from './agent-client.js';
import { mapLimited } from './batch-work.js';

export { explainError } from './batch-work.js';

/** Options of `Tollgate.decideMany`. */
export interface DecideManyOptions {
  /** Who decides every call of the batch; judged against each call's approvers on its own. */
  decidedBy?: DecidedBy;
  /** How long each decision waits for its run to confirm (see `DecisionOptions.wait`). */
  wait?: number | string;
}

/**
 * Decides each call of `decisions` as if it were sent alone (scope, approvers, fingerprint,
 * expiry, deadline), and answers one result per decision, in order: one refused call never
 * stops the others. `explain` turns an unexpected error into the result's error.
 */
export async function decideMany(
  agentOf: (agentId: string) => AgentClient,
  decisions: readonly BatchDecision[],
  options: DecideManyOptions,
  explain: (error: unknown) => { code: string; message: string },
): Promise<BatchDecisionResult[]> {
  if (!Array.isArray(decisions) || decisions.length > MAX_BATCH_DECISIONS) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `decideMany needs an array of at most ${MAX_BATCH_DECISIONS} decisions; split larger batches.`,
    );
  }
  return mapLimited(decisions, (item) => decideOne(agentOf, item, options, explain));
}

async function decideOne(
  agentOf: (agentId: string) => AgentClient,
  item: BatchDecision,
  options: DecideManyOptions,
  explain: (error: unknown) => { code: string; message: string },
): Promise<BatchDecisionResult> {
  const { agentId, runId, toolCallId, action, fingerprint, reason } = item ?? {};
  const ref = { agentId, runId, toolCallId, action };
  try {
    if (action !== 'approve' && action !== 'decline') {
      throw new TollgateError(
        'INVALID_OPTIONS',
        `A batch decision's action must be "approve" or "decline", not ${JSON.stringify(action)}.`,
      );
    }
    if (typeof toolCallId !== 'string' || toolCallId === '') {
      throw new TollgateError(
        'INVALID_OPTIONS',
        'A batch decision needs the toolCallId of the call it decides; list waiting calls first.',
      );
    }
    const applied = await agentOf(agentId).decideToolCall(action, {
      runId,
      toolCallId,
      ...(fingerprint !== undefined && action === 'approve' ? { fingerprint } : {}),
      ...(reason !== undefined ? { reason } : {}),
      ...(options.decidedBy !== undefined ? { decidedBy: options.decidedBy } : {}),
      ...(options.wait !== undefined ? { wait: options.wait } : {}),
    });
    return { ...ref, ok: true, decision: applied.decision };
  } catch (error) {
    return { ...ref, ok: false, error: explain(error) };
  }
}
