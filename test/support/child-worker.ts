import { ChildWorker } from '../../bench/support/child.js';

/**
 * A worker in its own process, on the tests' Temporal server: `script` hosts its agents on
 * `taskQueue`, with `env` added to what it reads (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TASK_QUEUE).
 */
export function testChildWorker(
  name: string,
  script: string,
  taskQueue: string,
  env: Record<string, string> = {},
): ChildWorker {
  return new ChildWorker({
    name,
    script,
    env: {
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
      TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE!,
      TASK_QUEUE: taskQueue,
      ...env,
    },
  });
}
