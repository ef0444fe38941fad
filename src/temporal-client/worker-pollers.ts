import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time.js';
import { agentTaskQueue } from '../common/wire.js';

/** Workers Temporal saw poll one task queue for workflow tasks. */
export interface TaskQueuePollers {
  taskQueue: string;
  /** Workers seen polling within `seenWithinMs`; 0 means no worker would pick up a decision. */
  pollers: number;
  /** Set when the run's workflow queue has workers but none hosts its agent. */
  agentId?: string;
}

/** Protobuf enum values of DescribeTaskQueue: a normal queue, its workflow- or activity-task side. */
const NORMAL_QUEUE = 1;
const TASK_TYPES = { workflow: 1, activity: 2 } as const;

/**
 * Identities of the workers Temporal saw poll `taskQueue` for workflow (or activity) tasks within
 * `seenWithinMs`. Temporal keeps a stopped worker in the list for minutes, with its last poll
 * time, so the time decides; an idle live worker re-polls about every 60 s.
 */
export async function recentPollers(
  client: Client,
  taskQueue: string,
  seenWithinMs: number,
  tasks: keyof typeof TASK_TYPES = 'workflow',
): Promise<Set<string>> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: NORMAL_QUEUE },
    taskQueueType: TASK_TYPES[tasks],
  });
  const since = Date.now() - seenWithinMs;
  return new Set(
    (response.pollers ?? [])
      .filter((poller) => (optionalTsToMs(poller.lastAccessTime) ?? 0) >= since)
      .map((poller) => poller.identity ?? ''),
  );
}

/** How many workers polled `taskQueue` within `seenWithinMs` (see `recentPollers`). */
export async function countPollers(
  client: Client,
  taskQueue: string,
  seenWithinMs: number,
): Promise<TaskQueuePollers> {
  return { taskQueue, pollers: (await recentPollers(client, taskQueue, seenWithinMs)).size };
}

/** How long a poller count is reused, ms: decisions in a burst ask Temporal once. */
const POLLERS_TTL_MS = 2_000;

/**
 * Whether a run's task queue has a worker. Poller counts are asked of Temporal at most every two
 * seconds per queue; the run's description (its queue, and whether it is still open: a closed
 * run needs no worker to refuse a decision) is read fresh on every call, or taken from a caller
 * that has just read it.
 */
export class WorkerAvailability {
  private readonly counts = new Map<string, { at: number; pollers: number }>();

  constructor(private readonly seenWithinMs: number) {}

  /**
   * The run's task queue and its pollers; undefined when the run is closed. With `agentId`, a
   * queue whose workers all lack the agent counts as none: they could apply a decision, but not
   * run the tool it releases (its activities go to `agentTaskQueue`, which only hosts poll).
   */
  async ofRun(
    client: Client,
    runId: string,
    described?: WorkflowExecutionDescription,
    agentId?: string,
  ): Promise<TaskQueuePollers | undefined> {
    const run = described ?? (await client.workflow.getHandle(runId).describe());
    if (run.status.name !== 'RUNNING') return undefined;
    const queue = { taskQueue: run.taskQueue };
    const pollers = await this.count(client, run.taskQueue, 'workflow');
    if (pollers === 0 || agentId === undefined) return { ...queue, pollers };
    const hosts = await this.count(client, agentTaskQueue(run.taskQueue, agentId), 'activity');
    return hosts === 0 ? { ...queue, pollers: 0, agentId } : { ...queue, pollers };
  }

  private async count(
    client: Client,
    taskQueue: string,
    tasks: 'workflow' | 'activity',
  ): Promise<number> {
    const key = `${tasks}:${taskQueue}`;
    const cached = this.counts.get(key);
    if (cached && Date.now() - cached.at < POLLERS_TTL_MS) return cached.pollers;
    const pollers = (await recentPollers(client, taskQueue, this.seenWithinMs, tasks)).size;
    this.counts.set(key, { at: Date.now(), pollers });
    return pollers;
  }
}
