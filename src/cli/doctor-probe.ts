/**
 * `tollgate doctor --probe`: reads how the server behaves on the path every agent step and every
 * decision takes. A tiny workflow runs a few activities one after another on a task queue of its
 * own, with a worker in this process; the history's server timestamps then say
 * - how long an activity completion waits before the next workflow task starts (the history
 *   transfer queue's poll rate: ~25–50 ms when throttled by Temporal's default of 20 polls/s), and
 * - whether activities were dispatched eagerly (started in the same call that scheduled them).
 */
import { Client, Connection } from '@temporalio/client';
// CommonJS: its `temporal` namespace only comes through the default import.
import proto from '@temporalio/proto';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ProbeActivities } from '../workflows/probe.js';

const PROBE_WORKFLOWS = fileURLToPath(new URL('../workflows/probe.js', import.meta.url));
const EventType = proto.temporal.api.enums.v1.EventType;

/**
 * Median wait of a round on the server's queues (activity completed → next workflow task, plus
 * the activity's dispatch) above which the history transfer queue reads as throttled. Throttled
 * (20 reads a second, Temporal's default), the server reads for each of a round's two hops ~50 ms
 * apart, so a round lasts ~100 ms and waits for whatever its own work leaves of that: ~75 ms on a
 * quiet machine. A tuned server waits ~5–10 ms a round (2 cores, quiet).
 */
export const THROTTLED_WAIT_MS = 20;
/**
 * An eager activity starts in the call that completed the workflow task that scheduled it, so
 * its start is stamped within this much of that completion; a dispatch through matching takes
 * at least a few RPCs longer.
 */
export const EAGER_DISPATCH_MS = 0.5;
/**
 * Rounds run before the counted ones and not measured. Besides warming the worker, they spend
 * the transfer queue's rate-limiter burst: the limiter holds as many reads as its per-second rate
 * (20 on Temporal's defaults) and refills at that rate while the rounds run, so a throttled
 * server answers the first rounds at full speed and the slower the rounds, the more of them.
 * Measured on a default dev server (2 cores): with rounds of ~22 ms of their own work, rounds
 * 1–12 woke in 4–5 ms and later ones in 38–46 ms; with ~40 ms, 15 rounds did not spend the
 * burst and the server read as OK. 40 rounds spend it for rounds of up to ~60 ms.
 */
export const PROBE_WARMUP_ROUNDS = 40;
/**
 * A round's own work (its workflow task and its activity, not the waits for the server's queues)
 * above which a throttled transfer queue may not show: the warm-up may not spend the burst, and
 * the ~100 ms a throttled round lasts leaves little to wait for. Above this median the probe
 * reports `busy`, not a verdict to act on. Measured on a default dev server (2 cores, quiet,
 * after 40 warm-up rounds): own work 22 ms → waits 75 ms a round; 40 → 60; 60 → 39; 74 → 13.
 */
export const THROTTLE_HIDDEN_MS = 60;

export interface ProbeFigures {
  /** Rounds measured, after `warmupRounds` that were not. */
  rounds: number;
  warmupRounds: number;
  taskQueue: string;
  workflowId: string;
  /** Activity completed → the next workflow task started, ms (server clock), per round. */
  wakeMs: number[];
  /** Workflow task completed → the activity it scheduled started, ms (server clock), per round. */
  dispatchMs: number[];
  /**
   * A round's own work, ms (server clock): the workflow task that scheduled the activity and the
   * activity's run, without the waits for the server's queues (`wakeMs`, `dispatchMs`).
   */
  ownMs: number[];
  /** This machine's 1-minute load average when the probe ended, and its CPUs. */
  loadAverage: number;
  cpus: number;
}

export interface ProbeVerdict {
  wakeMedianMs: number;
  /** Median of a round's waits on the server's queues: its wake and its dispatch. */
  waitMedianMs: number;
  /** Median of `ownMs`. */
  ownMedianMs: number;
  /**
   * The probe's timings cannot be trusted: the machine probing is busier than its CPUs (load
   * average above their count), which lengthens every wait, or the rounds' own work was slower
   * than `THROTTLE_HIDDEN_MS`, which hides a throttled transfer queue (a busy host the load
   * average does not show, such as a shared VM). Probe again when it is quieter.
   */
  busy: boolean;
  dispatchMedianMs: number;
  /** `throttled` when completions wait for the transfer queue's next poll. */
  transfer: 'ok' | 'throttled';
  /** Whether most activities were dispatched eagerly. */
  eager: boolean;
  /** What to change, one sentence each; empty when nothing. */
  advice: string[];
}

/** Runs the probe workflow on a fresh task queue with a worker in this process. */
export async function runServerProbe(options: {
  address: string;
  namespace: string;
  rounds: number;
}): Promise<ProbeFigures> {
  const taskQueue = `tollgate-probe-${randomUUID().slice(0, 8)}`;
  const workflowId = `${taskQueue}-run`;
  const activities: ProbeActivities = { probeStep: async (round) => round };
  const native = await NativeConnection.connect({ address: options.address });
  const connection = await Connection.connect({ address: options.address });
  try {
    const worker = await Worker.create({
      connection: native,
      namespace: options.namespace,
      taskQueue,
      workflowBundle: await bundleWorkflowCode({ workflowsPath: PROBE_WORKFLOWS, logger: silent }),
      activities,
    });
    const client = new Client({ connection, namespace: options.namespace });
    await worker.runUntil(
      client.workflow.execute('tollgateServerProbe', {
        taskQueue,
        workflowId,
        args: [PROBE_WARMUP_ROUNDS + options.rounds],
        workflowExecutionTimeout: '2 minutes',
      }),
    );
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const figures = timingsOf(history.events ?? []);
    return {
      rounds: options.rounds,
      warmupRounds: PROBE_WARMUP_ROUNDS,
      taskQueue,
      workflowId,
      wakeMs: figures.wakeMs.slice(PROBE_WARMUP_ROUNDS),
      dispatchMs: figures.dispatchMs.slice(PROBE_WARMUP_ROUNDS),
      ownMs: figures.ownMs.slice(PROBE_WARMUP_ROUNDS),
      loadAverage: loadavg()[0] ?? NaN,
      cpus: availableParallelism(),
    };
  } finally {
    await connection.close();
    await native.close();
  }
}

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

function millis(event: HistoryEvent): number {
  const time = event.eventTime;
  return Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;
}

/**
 * Per activity: WFT completed → activity started (dispatch), activity completed → next WFT
 * started (wake), and the round's own work: the workflow task that scheduled it (started →
 * completed) plus the activity's run (started → completed), no wait on the server's queues in it.
 */
export function timingsOf(events: HistoryEvent[]): {
  wakeMs: number[];
  dispatchMs: number[];
  ownMs: number[];
} {
  const wakeMs: number[] = [];
  const dispatchMs: number[] = [];
  const ownMs: number[] = [];
  const scheduledAfter = new Map<string, number>();
  let taskStarted: number | undefined;
  let taskMs = 0;
  let lastCompletedTask: number | undefined;
  let activityStarted: number | undefined;
  let completedActivity: number | undefined;
  for (const event of events) {
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        taskStarted = millis(event);
        if (completedActivity !== undefined) wakeMs.push(taskStarted - completedActivity);
        completedActivity = undefined;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        lastCompletedTask = millis(event);
        taskMs = lastCompletedTask - (taskStarted ?? lastCompletedTask);
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        if (lastCompletedTask !== undefined)
          scheduledAfter.set(String(event.eventId), lastCompletedTask);
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        activityStarted = millis(event);
        const completed = scheduledAfter.get(
          String(event.activityTaskStartedEventAttributes?.scheduledEventId),
        );
        if (completed !== undefined) dispatchMs.push(activityStarted - completed);
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
        completedActivity = millis(event);
        ownMs.push(taskMs + completedActivity - (activityStarted ?? completedActivity));
        break;
    }
  }
  return { wakeMs, dispatchMs, ownMs };
}

/** What the figures say about the server's settings. */
export function judgeProbe(
  figures: Pick<ProbeFigures, 'wakeMs' | 'dispatchMs' | 'ownMs' | 'loadAverage' | 'cpus'>,
): ProbeVerdict {
  const wakeMedianMs = median(figures.wakeMs);
  const dispatchMedianMs = median(figures.dispatchMs);
  const ownMedianMs = median(figures.ownMs);
  const busy = figures.loadAverage > figures.cpus || ownMedianMs > THROTTLE_HIDDEN_MS;
  const eagerRounds = figures.dispatchMs.filter((ms) => ms <= EAGER_DISPATCH_MS).length;
  const eager = eagerRounds * 2 > figures.dispatchMs.length;
  const waitMedianMs = median(figures.wakeMs.map((wake, i) => wake + (figures.dispatchMs[i] ?? 0)));
  const transfer = waitMedianMs > THROTTLED_WAIT_MS ? 'throttled' : 'ok';
  const advice: string[] = [];
  if (transfer === 'throttled')
    advice.push(
      `transferProcessorMaxPollRPS looks throttled: each activity waited ${waitMedianMs.toFixed(1)} ms (median) on the server's queues, ${wakeMedianMs.toFixed(1)} ms of it from its completion to the next workflow task; set the dynamic config history.transferProcessorMaxPollRPS to 2000 (Temporal's default is 20).`,
    );
  if (!eager)
    advice.push(
      `Activities were not dispatched eagerly (workflow task completed → activity started: ${dispatchMedianMs.toFixed(1)} ms median); set the dynamic config system.enableActivityEagerExecution to true.`,
    );
  return {
    wakeMedianMs,
    waitMedianMs,
    ownMedianMs,
    busy,
    dispatchMedianMs,
    transfer,
    eager,
    advice,
  };
}

function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const silent = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
};
