import type { NativeConnection, Worker } from '@temporalio/worker';
import { TollgateError } from './common/errors.js';
import { messageOf } from './common/message-of.js';

/** A Temporal worker and the promise of its `run()`. */
export interface RunningWorker {
  worker: Worker;
  running: Promise<void>;
}

/**
 * How a worker ended: when its `run()` settles, or when it enters FAILED — after a fatal poll
 * error (deleted namespace, rejected task queue) its `run()` can wait forever on the core's
 * shutdown, and neither a supervisor nor `shutdown()` should wait with it.
 */
export function workerEnd({ worker, running }: RunningWorker): Promise<{ failure?: unknown }> {
  return new Promise((resolve) => {
    const watch = setInterval(() => {
      if (worker.getState() !== 'FAILED') return;
      clearInterval(watch);
      resolve({
        failure: new Error("it failed (the cause is in the worker's log: 'Worker failed')"),
      });
    }, 1000);
    watch.unref();
    running.then(
      () => {
        clearInterval(watch);
        resolve({});
      },
      (failure: unknown) => {
        clearInterval(watch);
        resolve({ failure });
      },
    );
  });
}

/**
 * Stops `workers` (letting running activities finish), then closes their `native` connection.
 * A failed worker holds the connection until the core has shut it down, which may never happen
 * (see workerEnd): then it gets a moment, and the rest is left to the process's exit.
 */
export async function stopWorkers(
  workers: RunningWorker[],
  native: () => Promise<NativeConnection | undefined>,
): Promise<void> {
  for (const { worker } of workers) {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  }
  const ends = await Promise.all(workers.map(workerEnd));
  const connection = await native();
  if (ends.every((end) => end.failure === undefined)) {
    await connection?.close();
  } else {
    await Promise.race([
      Promise.allSettled(workers.map((w) => w.running)),
      new Promise((resolve) => setTimeout(resolve, 5000).unref()),
    ]);
    await connection?.close().catch(() => undefined);
  }
}

/**
 * Resolves when `main` stopped as part of a shutdown (`closing()` true by then); otherwise
 * rejects with `WORKER_STOPPED` naming why, with the worker's failure as its cause.
 */
export async function workerStoppedByItself(
  main: RunningWorker,
  closing: () => boolean,
  taskQueue: string,
): Promise<void> {
  const { failure } = await workerEnd(main);
  // A failure while shutting down is part of the shutdown.
  if (closing()) return;
  const why = failure === undefined ? 'without shutdown()' : `by itself: ${messageOf(failure)}`;
  throw new TollgateError(
    'WORKER_STOPPED',
    `The agent worker on task queue '${taskQueue}' stopped ${why}`,
    failure === undefined ? undefined : { cause: failure },
  );
}
