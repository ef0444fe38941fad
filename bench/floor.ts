/**
 * The floor: what bare Temporal costs on the same server for the same shapes Tollgate runs.
 * A loop of two remote activities per step (and the same with local activities), and a parked
 * workflow released by an update or a signal, timed to the start of its one activity. The worker
 * runs in this process (as Tollgate's does in the per-step bench), so one clock serves both sides.
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
  floorLoop,
  parkedUpdate,
  pokeUpdate,
  releaseSignal,
} from './baseline/workflows.js';
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
  /**
   * Median wall time per step of the runner measured alongside the remote loop (one of its runs
   * after each floor run, so both see the same moments of a noisy machine).
   */
  alongsidePerStepMs?: number;
  /** The same, for the runner measured alongside the local loop. */
  alongsideLocalPerStepMs?: number;
  update: FloorGateSample[];
  signal: FloorGateSample[];
  /**
   * The physical limit: round trips of an update whose workflow task issues no command, on one
   * open workflow (client → server → worker → server → client), in ms.
   */
  emptyTaskMs: number[];
}

export async function measureFloor(
  server: { address: string; namespace: string },
  options: { steps: number; runs: number; warmups: number; samples: number },
  /** A run of the same number of steps to time in turn with the remote loop's runs. */
  alongside?: (steps: number) => Promise<void>,
  /** The same, in turn with the local loop's runs (Tollgate's local mode). */
  alongsideLocal?: (steps: number) => Promise<void>,
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
    const loop = async (locally: boolean, partner?: (steps: number) => Promise<void>) => {
      const once = () =>
        client.workflow.execute(floorLoop, {
          taskQueue,
          workflowId: `floor-loop-${randomUUID()}`,
          args: [options.steps, locally],
        });
      const partnerOnce = () => partner?.(options.steps) ?? Promise.resolve();
      for (let i = 0; i < options.warmups; i++) {
        await once();
        await partnerOnce();
      }
      const times: number[] = [];
      const partnerTimes: number[] = [];
      for (let i = 0; i < options.runs; i++) {
        times.push((await timed(once)).ms);
        if (partner) partnerTimes.push((await timed(partnerOnce)).ms);
      }
      return {
        perStepMs: median(times) / options.steps,
        ...(partner ? { partnerPerStepMs: median(partnerTimes) / options.steps } : {}),
      };
    };
    progress(
      `floor: bare loop, 2 remote activities per step, ${options.runs} runs of ${options.steps} steps` +
        (alongside ? ', each followed by a run of the runner measured alongside' : ''),
    );
    const remote = await loop(false, alongside);
    const remotePerStepMs = remote.perStepMs;
    progress(
      `floor: bare loop, 2 local activities per step` +
        (alongsideLocal ? ', each followed by a run of the local-mode runner' : ''),
    );
    const local = await loop(true, alongsideLocal);
    const localPerStepMs = local.perStepMs;

    const gate = async (how: 'update' | 'signal') => {
      const samples: FloorGateSample[] = [];
      for (let i = 0; i < options.samples + options.warmups; i++) {
        const id = `floor-gate-${randomUUID()}`;
        const handle = await client.workflow.start(floorGate, {
          taskQueue,
          workflowId: id,
          args: [id],
        });
        expectThat((await handle.executeUpdate(parkedUpdate)) === true, `${id} did not park`);
        const sent = performance.now();
        if (how === 'update') await handle.executeUpdate(approveUpdate);
        else await handle.signal(releaseSignal);
        expectThat((await handle.result()) === `done ${id}`, `${id} did not run its activity`);
        const end = performance.now();
        const started = markedStarts.get(id);
        markedStarts.delete(id);
        expectThat(started !== undefined, `${id}: the activity never started`);
        if (i >= options.warmups)
          samples.push({ toActivityStartMs: started - sent, toEndMs: end - sent });
      }
      return samples;
    };
    progress(`floor: ${options.samples} empty workflow tasks (no-op updates), the physical limit`);
    const emptyTaskMs = await emptyTaskRoundTrips(client, taskQueue, options);
    progress(`floor: update -> activity start, ${options.samples} parked workflows`);
    const update = await gate('update');
    progress(`floor: signal -> activity start, ${options.samples} parked workflows`);
    const signal = await gate('signal');
    return {
      ...options,
      remotePerStepMs,
      localPerStepMs,
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
