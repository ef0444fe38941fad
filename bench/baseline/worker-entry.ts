/**
 * The baseline worker of the load benchmark, in its own process like Tollgate's, with the same
 * workflow cache bound. Runs `parkedRun` (bundled from ./workflows.js alone) on TASK_QUEUE.
 *
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, MAX_CACHED_WORKFLOWS.
 */
import { fileURLToPath } from 'node:url';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
} from '@temporalio/worker';
import { childSide } from '../support/child.js';
import { baselineActivities } from './activities.js';
import { quietBundleLogger } from '../support/bundle-logger.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
const worker = await Worker.create({
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE!,
  taskQueue: process.env.TASK_QUEUE!,
  workflowBundle: await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./workflows.js', import.meta.url)),
    logger: quietBundleLogger,
  }),
  activities: baselineActivities,
  maxCachedWorkflows: Number(process.env.MAX_CACHED_WORKFLOWS),
});
const running = worker.run();
const parent = childSide(async () => {
  worker.shutdown();
  await running;
  await connection.close();
});
running.catch((error: unknown) => {
  console.error('baseline worker stopped:', error);
  process.exit(1);
});
parent.ready();
