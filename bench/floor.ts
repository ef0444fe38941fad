/**
 * The floor: what bare Temporal costs on the same server for the same shapes Tollgate runs.
 * A loop of two remote activities per step (and the same with local activities), and a parked
 * workflow released by an update or a signal, timed to the start of its one activity. The worker
 * runs in this process (as Tollgate's does in the per-step bench), so one clock serves both sides.
 *
 * The same-work floor adds to the bare loop and gate what Tollgate's guarantees make it do and
 * nothing else: the client follows the run's history as a stream does (to show each step as its
 * workflow task completes), each tool call marks its attempt as executing with one heartbeat
 * (docs/durability.md), and an approved call's run answers the tool's result with one more
 * "model" activity before it ends.
 */
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { baselineActivities, markedStarts } from './baseline/activities.js';
import {
  approveUpdate,
  emptyTasks,
  floorGate,
  floorGateAnswered,
  floorLoop,
  floorLoopMarked,
  parkedUpdate,
  pokeUpdate,
  releaseSignal,
} from './baseline/workflows.js';
import type { ApprovalSample } from './approval-latency.js';
import { cpuDuring, type CpuSample } from './cpu.js';
import { expectThat, median, progress, timed } from './stats.js';
import { quietBundleLogger } from './support/bundle-logger.js';

const WORKFLOWS = fileURLToPath(new URL('./baseline/workflows.js', import.meta.url));

export interface FloorGateSample {
  /** Client sends the update/signal → the activity starts on the worker. */
  toActivityStartMs: number;
  /** Client sends the update/signal → the workflow's result is read. */
  toEndMs: number;
}

export interface FloorResult {
  steps: number;
  runs: number;
  /** Median wall time per step of a `steps`-step loop. */
  remotePerStepMs: number;
  localPerStepMs: number;
  /** Median wall time per step of the same-work loop: marked tool calls, followed like a stream. */
  sameWorkPerStepMs: number;
  /**
   * CPU per step of this process and of the server (undefined for an external server), over the
   * timed runs of the bare remote loop, the same-work loop and the runner alongside them.
   */
  cpuPerStep: { floor: CpuSample; sameWork: CpuSample; alongside: CpuSample };
  /**
   * Median wall time per step of the runner measured alongside the remote loop (one of its runs
   * after each floor run, so both see the same moments of a noisy machine).
   */
  alongsidePerStepMs?: number;
  /** The same, for the runner measured alongside the local loop. */
  alongsideLocalPerStepMs?: number;
  update: FloorGateSample[];
  signal: FloorGateSample[];
  /** Update → the answered gate's tool starts, and → its end, read by following its history. */
  sameWorkUpdate: FloorGateSample[];
  /** The approvals of the runner alongside, each timed right after an update and a same-work gate. */
  alongsideApprovals?: ApprovalSample[];
  /**
   * The physical limit: round trips of an update whose workflow task issues no command, on one
   * open workflow (client → server → worker → server → client), in ms.
   */
  emptyTaskMs: number[];
}

export async function measureFloor(
  server: { address: string; namespace: string; pid: number },
  options: { steps: number; runs: number; warmups: number; samples: number },
  /** A run of the same number of steps to time in turn with the remote loop's runs. */
  alongside?: (steps: number) => Promise<void>,
  /** The same, in turn with the local loop's runs (Tollgate's local mode). */
  alongsideLocal?: (steps: number) => Promise<void>,
  /** An approval to time in turn with the update gates (Tollgate's approve → tool, → end). */
  alongsideApproval?: () => Promise<ApprovalSample>,
): Promise<FloorResult> {
  const taskQueue = `floor-${randomUUID().slice(0, 8)}`;
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  const worker = await Worker.create({
    connection: native,
    namespace: server.namespace,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: WORKFLOWS,
      logger: quietBundleLogger,
    }),
    activities: baselineActivities,
  });
  const running = worker.run();
  try {
    const loop = async (
      locally: boolean,
      partner?: (steps: number) => Promise<void>,
      sameWork = false,
    ) => {
      const once = () =>
        client.workflow.execute(floorLoop, {
          taskQueue,
          workflowId: `floor-loop-${randomUUID()}`,
          args: [options.steps, locally],
        });
      const sameWorkOnce = async () => {
        const handle = await client.workflow.start(floorLoopMarked, {
          taskQueue,
          workflowId: `floor-same-work-${randomUUID()}`,
          args: [options.steps],
        });
        await followToClose(client, handle.workflowId);
      };
      const partnerOnce = () => partner?.(options.steps) ?? Promise.resolve();
      for (let i = 0; i < options.warmups; i++) {
        await once();
        if (sameWork) await sameWorkOnce();
        await partnerOnce();
      }
      const times: number[] = [];
      const sameWorkTimes: number[] = [];
      const partnerTimes: number[] = [];
      const cpu = { floor: noCpu(), sameWork: noCpu(), alongside: noCpu() };
      // Each run is timed and its CPU counted on its own, so the three alternate run by run.
      const measured = async (run: () => Promise<unknown>, into: number[], total: CpuSample) => {
        let ms = 0;
        const used = await cpuDuring(server.pid, async () => void (ms = (await timed(run)).ms));
        into.push(ms);
        addCpu(total, used, options.runs * options.steps);
      };
      for (let i = 0; i < options.runs; i++) {
        await measured(once, times, cpu.floor);
        if (sameWork) await measured(sameWorkOnce, sameWorkTimes, cpu.sameWork);
        if (partner) await measured(partnerOnce, partnerTimes, cpu.alongside);
      }
      return {
        perStepMs: median(times) / options.steps,
        sameWorkPerStepMs: sameWork ? median(sameWorkTimes) / options.steps : Number.NaN,
        cpu,
        ...(partner ? { partnerPerStepMs: median(partnerTimes) / options.steps } : {}),
      };
    };
    progress(
      `floor: bare loop, 2 remote activities per step, and the same-work loop, ${options.runs} runs of ${options.steps} steps each` +
        (alongside ? ', each pair followed by a run of the runner measured alongside' : ''),
    );
    const remote = await loop(false, alongside, true);
    const remotePerStepMs = remote.perStepMs;
    progress(
      `floor: bare loop, 2 local activities per step` +
        (alongsideLocal ? ', each followed by a run of the local-mode runner' : ''),
    );
    const local = await loop(true, alongsideLocal);
    const localPerStepMs = local.perStepMs;

    const gateSample = async (how: 'update' | 'signal' | 'same work') => {
      const id = `floor-gate-${randomUUID()}`;
      const handle = await client.workflow.start(
        how === 'same work' ? floorGateAnswered : floorGate,
        { taskQueue, workflowId: id, args: [id] },
      );
      expectThat((await handle.executeUpdate(parkedUpdate)) === true, `${id} did not park`);
      const sent = performance.now();
      if (how === 'signal') await handle.signal(releaseSignal);
      else await handle.executeUpdate(approveUpdate);
      if (how === 'same work') await followToClose(client, id);
      expectThat((await handle.result()) === `done ${id}`, `${id} did not run its activity`);
      const end = performance.now();
      const started = markedStarts.get(id);
      markedStarts.delete(id);
      expectThat(started !== undefined, `${id}: the activity never started`);
      return { toActivityStartMs: started - sent, toEndMs: end - sent };
    };
    progress(`floor: ${options.samples} empty workflow tasks (no-op updates), the physical limit`);
    const emptyTaskMs = await emptyTaskRoundTrips(client, taskQueue, options);
    progress(`floor: signal -> activity start, ${options.samples} parked workflows`);
    const signal: FloorGateSample[] = [];
    for (let i = 0; i < options.samples + options.warmups; i++) {
      const sample = await gateSample('signal');
      if (i >= options.warmups) signal.push(sample);
    }
    progress(
      `floor: update -> activity start, and the same-work gate, ${options.samples} parked workflows each` +
        (alongsideApproval ? ', each pair followed by an approval of the runner alongside' : ''),
    );
    const update: FloorGateSample[] = [];
    const sameWorkUpdate: FloorGateSample[] = [];
    const approvals: ApprovalSample[] = [];
    for (let i = 0; i < options.samples + options.warmups; i++) {
      const bare = await gateSample('update');
      const sameWork = await gateSample('same work');
      const alongsideSample = await alongsideApproval?.();
      if (i < options.warmups) continue;
      update.push(bare);
      sameWorkUpdate.push(sameWork);
      if (alongsideSample) approvals.push(alongsideSample);
    }
    return {
      ...options,
      remotePerStepMs,
      localPerStepMs,
      sameWorkPerStepMs: remote.sameWorkPerStepMs,
      cpuPerStep: remote.cpu,
      sameWorkUpdate,
      ...(alongsideApproval ? { alongsideApprovals: approvals } : {}),
      ...(remote.partnerPerStepMs !== undefined
        ? { alongsidePerStepMs: remote.partnerPerStepMs }
        : {}),
      ...(local.partnerPerStepMs !== undefined
        ? { alongsideLocalPerStepMs: local.partnerPerStepMs }
        : {}),
      update,
      signal,
      emptyTaskMs,
    };
  } finally {
    worker.shutdown();
    await running;
    await native.close();
    await connection.close();
  }
}

/** Round trips of no-op updates on one open workflow, after `warmups` untimed ones. */
async function emptyTaskRoundTrips(
  client: Client,
  taskQueue: string,
  options: { samples: number; warmups: number },
): Promise<number[]> {
  const handle = await client.workflow.start(emptyTasks, {
    taskQueue,
    workflowId: `floor-empty-${randomUUID()}`,
  });
  const times: number[] = [];
  for (let i = 0; i < options.samples + options.warmups; i++) {
    const { ms } = await timed(() => handle.executeUpdate(pokeUpdate));
    if (i >= options.warmups) times.push(ms);
  }
  await handle.signal(releaseSignal);
  const pokes = await handle.result();
  expectThat(pokes === options.samples + options.warmups, `empty tasks: ${pokes} pokes answered`);
  return times;
}

function noCpu(): CpuSample {
  return { ownMs: 0, serverMs: 0 };
}

/** Adds one run's CPU to `total`, as a share of `steps` (all the timed runs' steps). */
function addCpu(total: CpuSample, used: CpuSample, steps: number): void {
  total.ownMs += used.ownMs / steps;
  total.serverMs =
    total.serverMs === undefined || used.serverMs === undefined
      ? undefined
      : total.serverMs + used.serverMs / steps;
}

/**
 * Reads a workflow's history as a Tollgate stream follows a run (`watchHistory`): long-polls
 * for the events after the last one read, each answer one batch, until the run has closed.
 */
async function followToClose(client: Client, workflowId: string): Promise<void> {
  let nextPageToken: Uint8Array | undefined;
  for (;;) {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId },
      waitNewEvent: true,
      maximumPageSize: 256,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    if (!page.nextPageToken?.length) {
      const closed = page.history?.events?.at(-1);
      expectThat(
        closed?.workflowExecutionCompletedEventAttributes != null,
        `${workflowId} closed without completing`,
      );
      return;
    }
    nextPageToken = page.nextPageToken;
  }
}
