/**
 * Entry of the worker thread that bundles the workflow code (see `workflowBundle()` in
 * worker.ts). webpack's memory is the thread's own, so it goes back when the thread ends instead
 * of staying in the worker process's heap for its whole life.
 */
import { bundleWorkflowCode } from '@temporalio/worker';
import { parentPort, workerData } from 'node:worker_threads';

/** What `workflowBundle()` hands the thread. */
export interface BundleRequest {
  workflowsPath: string;
  interceptorModules: string[];
}

/** What the thread answers: the bundle's code, or why webpack failed. */
export type BundleAnswer = { code: string } | { error: string };

const request = workerData as BundleRequest;
const answer = (message: BundleAnswer): void => parentPort?.postMessage(message);

bundleWorkflowCode({
  workflowsPath: request.workflowsPath,
  workflowInterceptorModules: request.interceptorModules,
  logger: {
    log: () => undefined,
    trace: () => undefined,
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string, meta?: unknown) => console.warn(message, meta ?? ''),
    error: (message: string, meta?: unknown) => console.error(message, meta ?? ''),
  },
}).then(
  ({ code }) => answer({ code }),
  (error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }),
);
