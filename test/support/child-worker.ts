import { ChildWorker } from '../../bench/support/child.js';

/**
 * A worker in its own process, on the tests' Temporal server: `script` hosts its agents on
 * `taskQueue`, with `env` added to what it reads.
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
    temporal: {
      address: process.env.TEMPORAL_ADDRESS!,
      namespace: process.env.TEMPORAL_NAMESPACE!,
      taskQueue,
    },
    env,
  });
}
