/**
 * The life of one run of the deploy bench, from the client's side: started until it parks on
 * its gated call, approved (a refused approval is counted by its code and, when it may pass
 * later, sent again, as a person would click again), and followed to its end by its workflow's
 * result. Nothing here knows about releases: where the run went is read from the effects.
 */
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { optionalTsToMs } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isTollgateError, TollgateError, type AgentClient } from '../../src/index.js';
import type { RunResult } from '../../src/common/run-types.js';
import { describeError } from '../faults/analysis.js';
import { within } from '../support/concurrency.js';
import { deployPrompt, type AgentId } from './agents.js';

/** When a run was started: parked on release A before the roll, or started during it. */
export type Cohort =
  'parked before the roll' | 'started while B ramps' | 'started once B is current';

export interface DeployRun {
  runId: string;
  tag: string;
  agentId: AgentId;
  cohort: Cohort;
  /** Set when the start did not end with the run parked on its gated call. */
  startError?: string;
  parked: boolean;
  /** The stage of the roll in which its approval was sent. */
  approvedIn?: string;
  /** `applied`, or `confirmed-late` when an earlier unconfirmed attempt turned out to apply. */
  approval?: 'applied' | 'confirmed-late' | 'gave-up';
  /** `Date.now()` when its approval was first sent, and when an attempt was confirmed. */
  approvalSentAt?: number;
  approvalDoneAt?: number;
  end?: { status: 'completed'; text: string } | { status: 'failed'; code: string; message: string };
  endedAt?: number;
  /** For a run that did not end: where Temporal says it waits (`diagnose`). */
  diagnosis?: string;
  /** For a slow run: the task that waited longest to start (`longestWait`). */
  longestWait?: string;
}

/** Refused decisions, by stage of the roll and code. */
export class Refusals {
  readonly byStage = new Map<string, Map<string, number>>();

  add(stage: string, code: string): void {
    const codes = this.byStage.get(stage) ?? new Map<string, number>();
    codes.set(code, (codes.get(code) ?? 0) + 1);
    this.byStage.set(stage, codes);
  }

  total(): Map<string, number> {
    const all = new Map<string, number>();
    for (const codes of this.byStage.values())
      for (const [code, count] of codes) all.set(code, (all.get(code) ?? 0) + count);
    return all;
  }
}

const STEP_TIMEOUT_MS = 120_000;
/** Refusals that say "not now": the approval is sent again after a pause. */
const TRY_AGAIN = new Set(['WORKER_UNAVAILABLE', 'DECISION_NOT_CONFIRMED', 'TEMPORAL_UNAVAILABLE']);
/** Refusals that say an earlier attempt already applied the approval. */
const ALREADY_DECIDED = new Set([
  'TOOL_CALL_ALREADY_DECIDED',
  'NO_PENDING_TOOL_CALL',
  'RUN_FINISHED',
]);
const APPROVAL_ATTEMPTS = 8;
const RETRY_PAUSE_MS = 3_000;

/** Starts the run and waits until it parks on its gated call (`finishReason: 'suspended'`). */
export async function startParked(run: DeployRun, agent: AgentClient): Promise<void> {
  try {
    const output = await within(
      agent.generate(deployPrompt(run.tag), { runId: run.runId }),
      STEP_TIMEOUT_MS,
      `run ${run.runId} parking`,
    );
    run.parked = output.finishReason === 'suspended';
    if (!run.parked) run.startError = `ended its first stretch with ${output.finishReason}`;
  } catch (error) {
    run.startError = codeOf(error) ?? describeError(error);
  }
}

/** Approves the run's waiting call; every refusal is counted under `stage`. */
export async function approve(
  run: DeployRun,
  agent: AgentClient,
  stage: string,
  refusals: Refusals,
): Promise<void> {
  run.approvedIn = stage;
  run.approvalSentAt = Date.now();
  let unconfirmed = false;
  for (let attempt = 1; ; attempt++) {
    try {
      await within(
        agent.decideToolCall('approve', { runId: run.runId, decidedBy: { id: 'deploy-bench' } }),
        STEP_TIMEOUT_MS,
        `approval of ${run.runId}`,
      );
      run.approval = 'applied';
      run.approvalDoneAt = Date.now();
      return;
    } catch (error) {
      const code = codeOf(error) ?? `not a TollgateError: ${describeError(error).slice(0, 120)}`;
      refusals.add(stage, code);
      if (unconfirmed && ALREADY_DECIDED.has(code)) {
        run.approval = 'confirmed-late';
        run.approvalDoneAt = Date.now();
        return;
      }
      unconfirmed ||= code === 'DECISION_NOT_CONFIRMED';
      if (!TRY_AGAIN.has(code) || attempt >= APPROVAL_ATTEMPTS) {
        run.approval = 'gave-up';
        return;
      }
      await sleep(RETRY_PAUSE_MS);
    }
  }
}

/**
 * Waits for the run's workflow result and records how it ended. Never rejects: a run whose
 * result cannot be read by the end of the bench stays without `end`, and counts as lost.
 */
export async function followToEnd(run: DeployRun, client: Client): Promise<void> {
  try {
    const result = (await client.workflow.getHandle(run.runId).result()) as RunResult;
    run.end = { status: 'completed', text: result.text };
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) return;
    const failure = error.cause instanceof ApplicationFailure ? error.cause : undefined;
    const code =
      TollgateError.codeOfFailureType(failure?.type) ??
      failure?.type ??
      error.cause?.name ??
      'unknown';
    run.end = { status: 'failed', code, message: describeError(error.cause ?? error) };
  }
  run.endedAt = Date.now();
}

function codeOf(error: unknown): string | undefined {
  return isTollgateError(error) ? error.code : undefined;
}

const { PendingActivityState, VersioningBehavior } = proto.temporal.api.enums.v1;

/**
 * Where a run that has not ended waits, as Temporal describes it: its status, the build it runs
 * on and its versioning behavior, and its pending activities (type, state, attempt, queue).
 */
export async function diagnose(run: DeployRun, client: Client): Promise<void> {
  try {
    const described = await client.workflow.getHandle(run.runId).describe();
    const versioning = described.raw.workflowExecutionInfo?.versioningInfo;
    const build = versioning?.deploymentVersion?.buildId ?? 'no build';
    const behavior = VersioningBehavior[versioning?.behavior ?? 0] ?? 'unknown';
    const activities = (described.raw.pendingActivities ?? []).map((activity) => {
      const queue = activity.activityOptions?.taskQueue?.name;
      const failure = activity.lastFailure?.message;
      return (
        `${activity.activityType?.name ?? '?'} ${PendingActivityState[activity.state ?? 0] ?? String(activity.state)}` +
        ` attempt ${activity.attempt}${queue ? ` on ${queue}` : ''}${failure ? ` (last failure: ${failure.slice(0, 120)})` : ''}`
      );
    });
    run.diagnosis =
      `${described.status.name} on ${build}, ${behavior.replace('VERSIONING_BEHAVIOR_', '').toLowerCase()}; ` +
      `pending: ${activities.join('; ') || 'no activity'}`;
  } catch (error) {
    run.diagnosis = `not described: ${describeError(error).slice(0, 160)}`;
  }
}

/**
 * The task of the run that waited longest between being scheduled and a worker starting it,
 * read from its history: a workflow task or an activity, with its queue.
 */
export async function longestWait(run: DeployRun, client: Client): Promise<void> {
  try {
    const events = (await client.workflow.getHandle(run.runId).fetchHistory()).events ?? [];
    const byId = new Map(events.map((event) => [String(event.eventId), event]));
    const at = (event: (typeof events)[number]) => optionalTsToMs(event.eventTime) ?? 0;
    let worst: { ms: number; what: string } | undefined;
    for (const event of events) {
      const started =
        event.workflowTaskStartedEventAttributes ?? event.activityTaskStartedEventAttributes;
      const scheduled = byId.get(String(started?.scheduledEventId));
      if (!started || !scheduled) continue;
      const waited = at(event) - at(scheduled);
      if (worst && waited <= worst.ms) continue;
      const activity = scheduled.activityTaskScheduledEventAttributes;
      const task = scheduled.workflowTaskScheduledEventAttributes;
      const what = activity
        ? `activity ${activity.activityType?.name ?? '?'} on ${activity.taskQueue?.name ?? '?'}`
        : `workflow task on ${task?.taskQueue?.name ?? '?'}`;
      worst = { ms: waited, what };
    }
    run.longestWait = worst
      ? `${worst.what} waited ${(worst.ms / 1000).toFixed(1)} s to start`
      : 'no task started';
  } catch (error) {
    run.longestWait = `history not read: ${describeError(error).slice(0, 160)}`;
  }
}
