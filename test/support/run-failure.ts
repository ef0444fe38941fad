import { WorkflowFailedError } from '@temporalio/client';
import type { Tollgate } from '../../src/index.js';

/** The failure type and message a finished run failed with (e.g. `tollgate.PAYLOAD_TOO_LARGE`). */
export async function runFailure(
  tollgate: Tollgate,
  runId: string,
): Promise<{ type: string | undefined; message: string }> {
  const handle = (await tollgate.client()).workflow.getHandle(runId);
  try {
    await handle.result();
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    const cause = error.cause as { type?: string | null; message: string } | undefined;
    return { type: cause?.type ?? undefined, message: cause?.message ?? error.message };
  }
  throw new Error(`Run ${runId} did not fail.`);
}

/** The attempt numbers of a run's activities of `type`, as its history records the last start. */
export async function activityAttempts(
  tollgate: Tollgate,
  runId: string,
  type: string,
): Promise<number[]> {
  const handle = (await tollgate.client()).workflow.getHandle(runId);
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = new Set<string>();
  const attempts: number[] = [];
  for (const event of events) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === type)
      scheduled.add(String(event.eventId));
    const started = event.activityTaskStartedEventAttributes;
    if (started && scheduled.has(String(started.scheduledEventId)))
      attempts.push(started.attempt ?? 0);
  }
  return attempts;
}
