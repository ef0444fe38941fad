import type { InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { Chunk } from '../common/chunks.js';
import type { LogRelaySinks } from '../common/log-relay-sinks.js';
import { RunListeners } from './run-listeners.js';

/**
 * What a worker of this process saw a run's workflow task log, as the task ran: a chunk, or
 * only how long the log was. It becomes part of the run's log only if that task completes:
 * history must show the task's `WorkflowTaskCompleted` (execution `execution`, started event
 * `task`) before a reader uses it.
 */
export interface RelayedChunk {
  /** Temporal's run id of the workflow execution that logged it. */
  execution: string;
  /** Event id of the `WorkflowTaskStarted` of the task that logged it. */
  task: number;
  /** Length of the log with this chunk: the chunk's offset is `end - 1`. */
  end: number;
  /** Absent where the task only said how long the log is. */
  chunk?: Chunk;
  /**
   * Logged by a run that does local work: its task is not certain, so the chunk is the log only
   * once the run has closed by its own command with no workflow task failed.
   */
  atClose?: true;
}

/**
 * Hands the chunks a worker logs to the streams of the same process, so a stream reads a
 * completed workflow task's chunks without a query, which would send the worker another task.
 * In-process only, on purpose: a chunk read this way is shown as the run's log, so it must come
 * from this process's own worker, never from a broker others can publish to.
 */
export class LogRelay extends RunListeners<RelayedChunk> {
  /**
   * The worker's side: the sink the workflow calls. The worker runs it once the activation that
   * logged the chunk has finished and before it reports the task complete, so a stream of this
   * process holds a task's chunks before history can show the task completed.
   */
  sinks(): InjectedSinks<LogRelaySinks> {
    return {
      tollgateLogRelay: {
        logged: {
          fn: (info, offset, chunk, atClose) =>
            this.publish(info.workflowId, {
              ...taskOf(info),
              end: offset + 1,
              chunk,
              ...(atClose ? { atClose: true as const } : {}),
            }),
          callDuringReplay: false,
        },
        reached: {
          fn: (info, end) => this.publish(info.workflowId, { ...taskOf(info), end }),
          callDuringReplay: false,
        },
      },
    };
  }
}

function taskOf(info: WorkflowInfo): { execution: string; task: number } {
  // During a workflow task, the history's length is its WorkflowTaskStarted event's id.
  return { execution: info.runId, task: info.historyLength };
}

/** The process's relay: its workers publish to it, its streams subscribe. */
export const logRelay = new LogRelay();
