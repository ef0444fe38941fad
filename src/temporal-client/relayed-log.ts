import type { Chunk } from '../common/chunks.js';
import type { LogRelay, RelayedChunk } from '../live/log-relay.js';
import { closesExecution, type HistoryEvent } from './run-ending.js';

/**
 * What this process's worker saw a run's workflow tasks log (`LogRelay`), held until the run's
 * history shows the task that logged it completed. A tail reads the held chunks instead of
 * querying the run when they prove to be everything the run has logged so far: every chunk from
 * the reader's offset up to the log's length at the end of the latest completed task. A task
 * that relayed nothing here (another worker ran it, or it logged nothing outside a decision)
 * leaves that unproven, and the tail queries as before. Once the run has closed by its own command
 * and none of its workflow tasks failed or timed out, every activation its worker ran outside
 * replay is in its history: the chunks held through its `finish` are then its log, whichever task
 * logged each (the only proof for runs that do local work, which relay `atClose`).
 */
export class RelayedLog {
  private readonly held = new Map<number, RelayedChunk & { chunk: Chunk }>();
  /** The log's length at the end of each task of `execution` relayed here, by task. */
  private readonly ends = new Map<number, number>();
  /**
   * Temporal's run id of the execution whose history the watch reads: `undefined` until the
   * watch tells, `''` when it cannot (nothing relayed matches then).
   */
  private execution: string | undefined;
  /** The last event read continued the run as new: the next one starts the new execution. */
  private continued = false;
  /** A workflow task failed or timed out since the last one completed. */
  private retrying = false;
  /** A workflow task of `execution` failed or timed out: what its worker relayed may not be the log. */
  private taskFailed = false;
  /** `execution` closed by its own command (completed or failed), in a task that completed. */
  private closedByRun = false;
  private readonly completed = new Set<number>();
  /**
   * Tasks of `execution` that went on to relay at close (a run that turned out to do local work
   * once its first task had relayed its `start`): what they relayed per task is not their end.
   */
  private readonly endless = new Set<number>();
  private latest: number | undefined;
  /** The watch reported history since the last read: a read may stand in for a query. */
  private fresh = false;
  /** The history's latest workflow task is scheduled or running, as far as the watch has read. */
  private taskPending = false;
  private readonly relayed: RelayedChunk[] = [];
  private readonly unsubscribe: () => void;

  constructor(relay: LogRelay, runId: string) {
    this.unsubscribe = relay.subscribe(runId, (relayed) => this.hold(relayed));
  }

  private hold(relayed: RelayedChunk): void {
    const { chunk } = relayed;
    // A later task's chunk at the same offset replaces one of a task that never completed.
    if (chunk) this.held.set(relayed.end - 1, { ...relayed, chunk });
    if (this.execution === undefined) {
      // Until the watch names the execution, its tasks cannot be told from another's.
      this.relayed.push(relayed);
      return;
    }
    if (relayed.execution !== this.execution) return;
    // Its task is not certain (`readClosed`), and the task it came in logged more than it said.
    if (relayed.atClose) {
      this.endless.add(relayed.task);
      this.ends.delete(relayed.task);
      return;
    }
    if (this.endless.has(relayed.task)) return;
    // A task history has shown completed and that this log does not trust stays unproven.
    if (relayed.task <= (this.latest ?? 0) && !this.completed.has(relayed.task)) return;
    this.ends.set(relayed.task, Math.max(this.ends.get(relayed.task) ?? 0, relayed.end));
  }

  /**
   * What the history watch read; no events after a failed poll (the next read queries). True when
   * a workflow task completed among them: the log may have grown.
   */
  observe(events: readonly HistoryEvent[]): boolean {
    const completion = events.some((event) => event.workflowTaskCompletedEventAttributes);
    // A failed poll may have missed events: only a query proves the log then.
    this.fresh = events.length > 0 && (this.fresh || completion);
    // A failed poll may have missed the task's end.
    if (events.length === 0) this.taskPending = false;
    for (const event of events) {
      if (event.workflowTaskScheduledEventAttributes) this.taskPending = true;
      if (
        event.workflowTaskCompletedEventAttributes ||
        event.workflowTaskFailedEventAttributes ||
        event.workflowTaskTimedOutEventAttributes ||
        closesExecution(event)
      ) {
        this.taskPending = false;
      }
      const started = event.workflowExecutionStartedEventAttributes;
      // A first execution's own run id; one continued from another is named by the event that
      // continued it, and stays unknown (never matched) to a watch that began after it.
      if (started && !this.continued) {
        this.enter((!started.continuedExecutionRunId && started.originalExecutionRunId) || '');
      }
      this.continued = false;
      const continued = event.workflowExecutionContinuedAsNewEventAttributes;
      if (continued) {
        this.enter(continued.newExecutionRunId || '');
        this.continued = true;
      }
      // After a failed or timed-out workflow task, Temporal records the next attempts only when
      // one completes, all under the same started event id: what a failed one of them relayed
      // here cannot be told from the completed one's, so that task is read by a query.
      if (event.workflowTaskFailedEventAttributes || event.workflowTaskTimedOutEventAttributes) {
        this.retrying = true;
        this.taskFailed = true;
      }
      if (
        event.workflowExecutionCompletedEventAttributes ||
        event.workflowExecutionFailedEventAttributes
      ) {
        this.closedByRun = true;
      }
      const done = event.workflowTaskCompletedEventAttributes;
      if (done) {
        const task = Number(done.startedEventId ?? 0);
        if (this.retrying) this.ends.delete(task);
        else this.completed.add(task);
        this.retrying = false;
        this.latest = Math.max(this.latest ?? 0, task);
      }
    }
    // Only the latest task's end is asked for again.
    for (const task of this.ends.keys()) if (task < (this.latest ?? 0)) this.ends.delete(task);
    return completion;
  }

  /**
   * A workflow task is scheduled or running: a query sent now waits for it to end and, should it
   * close the run, is answered by replaying the whole run. The history watch reports its end.
   */
  get workflowTaskPending(): boolean {
    return this.taskPending;
  }

  private enter(execution: string): void {
    if (execution === this.execution) return;
    this.execution = execution;
    this.completed.clear();
    this.ends.clear();
    this.endless.clear();
    this.latest = undefined;
    this.retrying = false;
    this.taskFailed = false;
    this.closedByRun = false;
    const earlier = this.relayed.splice(0);
    for (const relayed of earlier) if (relayed.execution === execution) this.hold(relayed);
  }

  /**
   * The chunks from `offset` to the log's end, when the watch has just reported history and what
   * is held proves it is all; `undefined` otherwise (the log must be queried).
   */
  read(offset: number): Chunk[] | undefined {
    const closed = this.readClosed(offset);
    if (closed) {
      this.held.clear();
      return closed;
    }
    const fresh = this.fresh;
    this.fresh = false;
    const chunks: Chunk[] = [];
    let relayed = this.held.get(offset);
    while (relayed && this.logged(relayed)) {
      chunks.push(relayed.chunk);
      relayed = this.held.get(offset + chunks.length);
    }
    const end = offset + chunks.length;
    for (const at of this.held.keys()) if (at < end) this.held.delete(at);
    if (!fresh || this.latest === undefined) return undefined;
    const latestEnd = this.ends.get(this.latest);
    return latestEnd !== undefined && latestEnd <= end ? chunks : undefined;
  }

  private logged(relayed: RelayedChunk): boolean {
    return (
      !relayed.atClose && relayed.execution === this.execution && this.completed.has(relayed.task)
    );
  }

  /**
   * The chunks from `offset` through the run's `finish`, all relayed by its execution, once that
   * execution closed by its own command and none of its workflow tasks failed or timed out (a
   * task that did may have relayed chunks its retry logged otherwise: a local activity runs again).
   * A run ended from outside (terminated, timed out) may have relayed a task that never completed.
   */
  private readClosed(offset: number): Chunk[] | undefined {
    if (!this.closedByRun || this.taskFailed) return undefined;
    const chunks: Chunk[] = [];
    for (
      let relayed = this.held.get(offset);
      relayed !== undefined && relayed.execution === this.execution;
      relayed = this.held.get(offset + chunks.length)
    ) {
      chunks.push(relayed.chunk);
      if (relayed.chunk.type === 'finish') return chunks;
    }
    return undefined;
  }

  close(): void {
    this.unsubscribe();
    this.held.clear();
    this.relayed.length = 0;
  }
}
