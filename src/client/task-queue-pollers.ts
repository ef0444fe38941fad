import type { Client } from '@temporalio/client';
// CommonJS: its `temporal` namespace is not a named ESM export.
import proto from '@temporalio/proto';

const { TaskQueueKind, TaskQueueType } = proto.temporal.api.enums.v1;

/**
 * How recently a worker must have polled to count as polling now, ms. A live worker starts a new
 * long poll at least every minute or so; Temporal keeps listing a stopped one for minutes.
 */
export const POLLER_FRESH_MS = 2 * 60_000;

/** Identities of the workers that polled `taskQueue` for workflow tasks within `POLLER_FRESH_MS`. */
export async function pollingWorkers(client: Client, taskQueue: string): Promise<Set<string>> {
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const since = Date.now() - POLLER_FRESH_MS;
  return new Set(
    pollers
      .filter((poller) => Number(poller.lastAccessTime?.seconds ?? 0) * 1000 >= since)
      .map((poller) => poller.identity ?? ''),
  );
}
