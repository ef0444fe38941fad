/**
 * The Tollgate worker of the load benchmark, in its own process so its memory can be read from
 * /proc. Hosts `load-agent` on TASK_QUEUE.
 *
 * Tollgate does not expose Temporal's worker options, so the workflow cache bound
 * (MAX_CACHED_WORKFLOWS) is applied by wrapping `Worker.create` before Tollgate calls it — a
 * stand-in for a `worker: { maxCachedWorkflows }` option of `new Tollgate()`.
 *
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, MAX_CACHED_WORKFLOWS.
 */
import { DefaultLogger, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { Tollgate } from '../../src/index.js';
import { childSide } from '../support/child.js';
import { loadAgent } from './agent.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

const maxCachedWorkflows = Number(process.env.MAX_CACHED_WORKFLOWS);
if (!Number.isInteger(maxCachedWorkflows) || maxCachedWorkflows < 0)
  throw new Error('load worker: MAX_CACHED_WORKFLOWS must be a whole number.');
const create = Worker.create.bind(Worker);
Worker.create = (options: WorkerOptions) =>
  create(
    options.workflowBundle || options.workflowsPath ? { ...options, maxCachedWorkflows } : options,
  );

const tollgate = new Tollgate({
  agents: { agent: loadAgent() },
  temporal: {
    address: process.env.TEMPORAL_ADDRESS!,
    namespace: process.env.TEMPORAL_NAMESPACE!,
    taskQueue: process.env.TASK_QUEUE!,
  },
});
const parent = childSide(() => tollgate.shutdown());
try {
  await tollgate.startWorker();
  parent.ready();
} catch (error) {
  console.error('load worker: the worker did not start:', error);
  process.exit(1);
}
