import { isGrpcDeadlineError, type Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { parseDuration } from '../common/approval-rules.js';
import type {
  AppliedDecision,
  DecisionGrant,
  DecisionInput,
  DecisionKind,
} from '../common/decision-types.js';
import { TollgateError } from '../common/errors.js';
import type { JsonValue } from '../common/json.js';
import { decisionUpdates } from '../common/messages.js';
import type { AgentClientContext } from './agent-client-context.js';
import { sendDecisionWithin } from './bounded-decision.js';
import { callFailure } from './call-failure.js';
import type { SeenRun } from './scope-guard.js';
import type { DecisionOptions } from './run-options.js';
import { workerUnavailable } from './worker-pollers.js';

/** What a decision may carry besides `DecisionOptions`: how it came (`DecisionInput`). */
export interface DecisionExtras {
  /** Recorded as the decision's audit channel: a signed link, or a Slack button. */
  channel?: 'link' | 'slack';
  /** The standing grant that approves the call (a grant's release). */
  grant?: DecisionGrant;
  /** An approval that also grants the tool for the rest of this run (`DecisionInput.runGrant`). */
  runGrant?: true;
}

/**
 * Sends one decision as an update, validated by the run before anything reaches history, and
 * answers within the decision's wait: `WORKER_UNAVAILABLE` at once (nothing sent) when no
 * worker polls the run's task queue, `DECISION_NOT_CONFIRMED` when the wait runs out. The
 * decision carries a deadline (now + wait + margin) after which the run refuses it. `run` is
 * what the caller's scope check knows of the run: its description if it read one, else its
 * facts (see `WorkerAvailability.ofRun` for when that spares a describe).
 */
export async function applyDecision(
  context: AgentClientContext,
  agentId: string,
  client: Client,
  kind: DecisionKind,
  options: DecisionOptions & DecisionExtras & { resumeData?: JsonValue },
  run?: SeenRun,
): Promise<AppliedDecision> {
  const { toolCallId, fingerprint, reason, decidedBy, resumeData, args, channel } = options;
  const { amount, grant, runGrant } = options;
  const input = {
    agentId: agentId,
    ...(args !== undefined ? { args } : {}),
    ...(amount !== undefined ? { amount } : {}),
    ...(toolCallId !== undefined ? { toolCallId } : {}),
    ...(fingerprint !== undefined ? { fingerprint } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(decidedBy !== undefined ? { decidedBy } : {}),
    ...(resumeData !== undefined ? { resumeData } : {}),
    ...(channel !== undefined ? { channel } : {}),
    ...(grant !== undefined ? { grant } : {}),
    ...(runGrant === true ? { runGrant } : {}),
  } satisfies DecisionInput;
  return sendWithinWait(context, client, decisionUpdates[kind], input, options, run);
}

/**
 * Sends one update of a decision's kind (a decision, a hand-off) with its deadline, within the
 * caller's `wait`, after checking a worker polls the run's queue (see `applyDecision`).
 */
export async function sendWithinWait<Result, Input extends { agentId?: string; deadline?: string }>(
  context: AgentClientContext,
  client: Client,
  update: UpdateDefinition<Result, [Input]>,
  input: Input & { agentId: string },
  { runId, wait }: { runId: string; wait?: number | string | undefined },
  run?: SeenRun,
): Promise<Result> {
  const { waitMs: defaultWaitMs, deadlineMarginMs } = context.decisions;
  const waitMs = wait === undefined ? defaultWaitMs : parseDuration(wait, 'wait');
  const started = Date.now();
  try {
    await assertWorker(context, client, { runId, agentId: input.agentId }, started + waitMs, run);
    const deadline = new Date(started + waitMs + deadlineMarginMs).toISOString();
    const left = Math.max(1, started + waitMs - Date.now());
    return await sendDecisionWithin(client, runId, update, { ...input, deadline }, left);
  } catch (error) {
    throw await callFailure(context, error, runId);
  }
}

/** Throws `WORKER_UNAVAILABLE` when no worker polls the open run's task queue. */
async function assertWorker(
  context: AgentClientContext,
  client: Client,
  { runId, agentId }: { runId: string; agentId: string },
  deadline: number,
  run?: SeenRun,
): Promise<void> {
  let found;
  try {
    found = await client.connection.withDeadline(deadline, () =>
      context.workers.ofRun(client, runId, run?.described ?? run?.facts, agentId),
    );
  } catch (error) {
    if (!isGrpcDeadlineError(error)) throw error;
    throw new TollgateError(
      'TEMPORAL_UNAVAILABLE',
      `Temporal did not answer about run ${runId} within the decision's wait; nothing was sent, try again.`,
      { cause: error },
    );
  }
  if (found?.pollers !== 0) return;
  throw workerUnavailable(found, runId, 'the decision');
}
