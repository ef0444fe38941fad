import type { Worker } from '@temporalio/worker';

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
