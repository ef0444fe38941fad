/**
 * A worker that fails by itself (`test/worker-settings.test.ts`), in its own process: a task
 * queue name over the server's length limit starts fine, then its polls are refused for good.
 * Prints `STOPPED <code>: <message>` when `workerStopped()` settles, then `SHUT DOWN` once
 * `shutdown()` returns. It exits explicitly: Temporal's core may keep a failed worker's handles.
 *
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE.
 */
import { Tollgate, TollgateError } from '../../src/index.js';
import { gatedTestAgent } from './harness.js';

const tollgate = new Tollgate({
  agents: { a: gatedTestAgent('refused-agent').agent },
  temporal: { taskQueue: process.env.TASK_QUEUE! },
});
await tollgate.startWorker();
console.log('STARTED');
const outcome = await tollgate.workerStopped().then(
  () => 'resolved',
  (error: unknown) =>
    error instanceof TollgateError ? `${error.code}: ${error.message}` : `other ${String(error)}`,
);
console.log(`STOPPED ${outcome}`);
await tollgate.shutdown();
console.log('SHUT DOWN');
process.exit(0);
