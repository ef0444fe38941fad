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
 * Median completion → next workflow task wait above which the transfer queue reads as throttled.
 * Throttled servers measure ~25–50 ms, tuned ones ~1–3 ms on a quiet machine: the margin absorbs
 * some load, not a machine whose load average is a multiple of its CPUs (see `busy`).
 */
export const THROTTLED_WAKE_MS = 12;
/**
 * An eager activity starts in the call that completed the workflow task that scheduled it, so
 * its start is stamped within this much of that completion; a dispatch through matching takes
 * at least a few RPCs longer.
 */
export const EAGER_DISPATCH_MS = 0.5;
/**
 * Rounds run before the counted ones and not measured. Besides warming the worker, they spend
 * the transfer queue's rate-limiter burst: the limiter holds as many reads as its per-second rate
 * (20 on Temporal's defaults) and each round takes two reads (the workflow task and the
 * activity), so a throttled server answers its first ~10 rounds at full speed and only then
 * waits ~50 ms per read. Measured on a default dev server: rounds 1–12 woke in 4–5 ms, every later
 * one in 38–46 ms.
 */
export const PROBE_WARMUP_ROUNDS = 15;

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
  /** This machine's 1-minute load average when the probe ended, and its CPUs. */
  loadAverage: number;
  cpus: number;
}

export interface ProbeVerdict {
  wakeMedianMs: number;
  /**
   * The machine probing is busier than its CPUs (load average above their count): every wait
   * grows, so a `throttled` verdict may be the machine's doing. Probe again when it is quieter.
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

/** Per activity: WFT completed → activity started, and activity completed → next WFT started. */
export function timingsOf(events: HistoryEvent[]): { wakeMs: number[]; dispatchMs: number[] } {
  const wakeMs: number[] = [];
  const dispatchMs: number[] = [];
  const scheduledAfter = new Map<string, number>();
  let lastCompletedTask: number | undefined;
  let completedActivity: number | undefined;
  for (const event of events) {
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        lastCompletedTask = millis(event);
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        if (lastCompletedTask !== undefined)
          scheduledAfter.set(String(event.eventId), lastCompletedTask);
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        const completed = scheduledAfter.get(
          String(event.activityTaskStartedEventAttributes?.scheduledEventId),
        );
        if (completed !== undefined) dispatchMs.push(millis(event) - completed);
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
        completedActivity = millis(event);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        if (completedActivity !== undefined) wakeMs.push(millis(event) - completedActivity);
        completedActivity = undefined;
        break;
    }
  }
  return { wakeMs, dispatchMs };
}

/** What the figures say about the server's settings. */
export function judgeProbe(
  figures: Pick<ProbeFigures, 'wakeMs' | 'dispatchMs' | 'loadAverage' | 'cpus'>,
): ProbeVerdict {
  const wakeMedianMs = median(figures.wakeMs);
  const dispatchMedianMs = median(figures.dispatchMs);
  const busy = figures.loadAverage > figures.cpus;
  const eagerRounds = figures.dispatchMs.filter((ms) => ms <= EAGER_DISPATCH_MS).length;
  const eager = eagerRounds * 2 > figures.dispatchMs.length;
  const transfer = wakeMedianMs > THROTTLED_WAKE_MS ? 'throttled' : 'ok';
  const advice: string[] = [];
  if (transfer === 'throttled')
    advice.push(
      `transferProcessorMaxPollRPS looks throttled: an activity completion waited ${wakeMedianMs.toFixed(1)} ms (median) for the next workflow task; set the dynamic config history.transferProcessorMaxPollRPS to 2000 (Temporal's default is 20).`,
    );
  if (!eager)
    advice.push(
      `Activities were not dispatched eagerly (workflow task completed → activity started: ${dispatchMedianMs.toFixed(1)} ms median); set the dynamic config system.enableActivityEagerExecution to true.`,
    );
  return {
    wakeMedianMs,
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
