import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { ReplayCheckAnswer, ReplayCheckInput } from '../common/deployment-types.js';
import { TollgateError } from '../common/errors.js';
import { messageOf } from '../common/message-of.js';
import { REPLAY_CHECK_WORKFLOW } from '../common/wire.js';

/** How long a move waits for a worker of the target build to replay the run, ms. */
export const REPLAY_CHECK_WAIT_MS = 60_000;

/** The run to check, and the build it is pinned to now (named in refusals). */
export interface CheckedRun {
  runId: string;
  /** Temporal's run id of the execution whose history is replayed. */
  execution: string;
  taskQueue: string;
  from: WorkerDeploymentVersion;
}

/**
 * Replays the run's history on a worker of `target` with that build's own workflow code: the
 * `tollgateReplayCheck` workflow, started pinned to the build on the run's task queue. Resolves
 * when the build replays it; else throws `REPLAY_FAILED` (the build's code cannot replay the run,
 * or the check failed) or `WORKER_UNAVAILABLE` (no worker of the build ran the check in time, or
 * the build has no check). A check given up on is terminated.
 */
export async function replayOnBuild(
  client: Client,
  run: CheckedRun,
  target: WorkerDeploymentVersion,
  waitMs = REPLAY_CHECK_WAIT_MS,
): Promise<void> {
  const input: ReplayCheckInput = { runId: run.runId, execution: run.execution };
  const handle = await client.workflow.start(REPLAY_CHECK_WORKFLOW, {
    workflowId: `tollgate-replay-check/${run.runId}/${randomUUID()}`,
    taskQueue: run.taskQueue,
    args: [input],
    versioningOverride: { pinnedTo: target },
    // Ends by itself should the terminate below not reach Temporal.
    workflowExecutionTimeout: waitMs + 30_000,
    staticSummary: `Replay check of run ${run.runId} on build ${target.buildId}`,
  });
  let answered = false;
  try {
    const outcome = await within(handle.result() as Promise<ReplayCheckAnswer>, waitMs);
    if (outcome === undefined) {
      // Temporal retries a failed task; the failure of the last try says why, if it failed.
      const failed = await failedTaskOf(handle).catch(() => undefined);
      const seconds = Math.round(waitMs / 1000);
      throw unavailable(
        run,
        target,
        failed === undefined
          ? `none took it within ${seconds} s`
          : `its workers failed it for ${seconds} s: ${firstLine(failed)}`,
      );
    }
    answered = true;
    if ('error' in outcome) {
      throw replayFailed(run, target, `the check failed: ${messageOf(outcome.error)}`);
    }
    if (!outcome.value.ok) throw replayFailed(run, target, firstLine(outcome.value.message));
  } finally {
    if (!answered) await handle.terminate('The move gave up on this check.').catch(() => undefined);
  }
}

/** How `promise` settled within `ms`; undefined when it did not. */
async function within<T>(
  promise: Promise<T>,
  ms: number,
): Promise<{ value: T } | { error: unknown } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Why the check's workflow task last failed on the build's workers; undefined if it never did. */
async function failedTaskOf(handle: WorkflowHandle): Promise<string | undefined> {
  const { events } = await handle.fetchHistory();
  const failures = (events ?? []).flatMap((event) => {
    const failure = event.workflowTaskFailedEventAttributes?.failure;
    return failure ? [failure.message ?? 'an unnamed failure'] : [];
  });
  return failures.at(-1);
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0]!.trim();
}

const build = (version: WorkerDeploymentVersion) =>
  `build ${version.buildId} of deployment ${version.deploymentName}`;

function replayFailed(run: CheckedRun, target: WorkerDeploymentVersion, why: string) {
  return new TollgateError(
    'REPLAY_FAILED',
    `${capitalized(build(target))} cannot replay run ${run.runId}: ${why}. The run stays on build ${run.from.buildId}: let it finish there, or make the new code replay it (a patched() gate, docs/workflow-changes.md) and move it again.`,
  );
}

function unavailable(run: CheckedRun, target: WorkerDeploymentVersion, detail: string) {
  return new TollgateError(
    'WORKER_UNAVAILABLE',
    `No worker of ${build(target)} ran the replay check of run ${run.runId} (${detail}); a build older than run moves has no replay check. The run stays on build ${run.from.buildId}; start workers of a build that can take it, then move it again.`,
  );
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
