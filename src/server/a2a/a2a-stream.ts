/**
 * A task's events over A2A streams (`SendStreamingMessage`, `SubscribeToTask`; docs/a2a.md):
 * the task first, then a status update each time its state changes, read from the run's chunk
 * log. What is streamed is the task's state, not the run's text: a `working` update when the run
 * moves on, and at the end the state it settled in (`input-required` with the waiting calls, or a
 * final state), a completed run's text also as an artifact update. The stream ends when the task
 * ends or waits for input, as A2A's interrupted states do.
 */
import type { StreamResponse, Task, TaskStatus } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type { RunStatus } from '../../temporal-client/run-status.js';
import type { AgentStream } from '../../stream/agent-stream.js';
import { taskOf } from './a2a-task.js';

/** What following a task needs: the run read back, and its log followed from an offset. */
export interface TaskFollower {
  agentId: string;
  status(runId: string): Promise<RunStatus>;
  observe(runId: string, offset: number): Promise<AgentStream>;
}

/** The task as a stream's first event. */
export function taskEvent(task: Task): StreamResponse {
  return { payload: { $case: 'task', value: task } };
}

/**
 * Events of `stream` (a run just started or answered) up to where the run settles: `working`
 * at its first chunk, then the settled state. `state` is what the client was last told.
 */
export async function* untilSettled(
  follower: TaskFollower,
  stream: AgentStream,
  told: TaskState,
): AsyncGenerator<StreamResponse, void, undefined> {
  let state = told;
  let current = stream;
  for (;;) {
    for await (const _item of current.items) {
      if (state === TaskState.TASK_STATE_WORKING) continue;
      state = TaskState.TASK_STATE_WORKING;
      yield statusEvent(
        taskOf(follower.agentId, { runId: current.runId, state: 'running', pending: [] }),
      );
    }
    const offset = await current.nextOffset;
    const task = taskOf(follower.agentId, await follower.status(current.runId));
    const settled = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
    // A run that works on after its stream ended (a finish a decision already answered).
    if (settled === TaskState.TASK_STATE_WORKING) {
      current = await follower.observe(current.runId, offset);
      continue;
    }
    if (task.artifacts.length > 0) yield* artifactEvents(task);
    yield statusEvent(task);
    return;
  }
}

/**
 * A subscription to a task: its current state, then, while the run is open, what follows from
 * the end of its log (`offset`) until it ends or waits again.
 */
export async function* subscription(
  follower: TaskFollower,
  runId: string,
  offset: () => Promise<number>,
): AsyncGenerator<StreamResponse, void, undefined> {
  // Where the log ends is read first: what happens after the state is read is then not missed.
  const end = await offset();
  const status = await follower.status(runId);
  const task = taskOf(follower.agentId, status);
  yield taskEvent(task);
  if (status.state !== 'running') return;
  const stream = await follower.observe(runId, end);
  yield* untilSettled(follower, stream, task.status?.state ?? TaskState.TASK_STATE_WORKING);
}

function statusEvent(task: Task): StreamResponse {
  const status: TaskStatus | undefined = task.status;
  const value = { taskId: task.id, contextId: task.contextId, status, metadata: undefined };
  return { payload: { $case: 'statusUpdate', value } };
}

function* artifactEvents(task: Task): Generator<StreamResponse> {
  for (const artifact of task.artifacts) {
    const value = {
      taskId: task.id,
      contextId: task.contextId,
      artifact,
      append: false,
      lastChunk: true,
      metadata: undefined,
    };
    yield { payload: { $case: 'artifactUpdate', value } };
  }
}
