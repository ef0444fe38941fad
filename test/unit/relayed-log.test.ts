import { describe, expect, it } from '@jest/globals';
import { temporal } from '@temporalio/proto';
import { makeChunk, ZERO_USAGE, type Chunk } from '../../src/common/chunks.js';
import { LogRelay } from '../../src/live/log-relay.js';
import { RelayedLog } from '../../src/temporal-client/relayed-log.js';
import type { HistoryEvent } from '../../src/temporal-client/run-ending.js';

const RUN = 'run-1';
const FIRST = 'execution-1';

function text(n: number): Chunk {
  return makeChunk(RUN, 'text-delta', { text: `t${n}` });
}

/** A worker of this process logging `chunks` from `offset` in workflow task `task`. */
function logged(relay: LogRelay, execution: string, task: number, offset: number, count: number) {
  for (let i = 0; i < count; i++) {
    relay.publish(RUN, { execution, task, end: offset + i + 1, chunk: text(offset + i) });
  }
}

const started = (execution: string, continuedFrom = ''): HistoryEvent => ({
  workflowExecutionStartedEventAttributes: {
    originalExecutionRunId: execution,
    continuedExecutionRunId: continuedFrom,
  },
});
/** As the client decodes it: event ids are Longs. */
const completed = (task: number): HistoryEvent =>
  temporal.api.history.v1.HistoryEvent.fromObject({
    workflowTaskCompletedEventAttributes: { startedEventId: task },
  });
/** A relay of this process and a stream's relayed log of RUN, subscribed to it. */
function relayedLog(): { relay: LogRelay; log: RelayedLog } {
  const relay = new LogRelay();
  return { relay, log: new RelayedLog(relay, RUN) };
}

const texts = (chunks: Chunk[] | undefined) =>
  chunks?.map((chunk) => (chunk.payload as { text: string }).text);

describe('the chunks a worker relays to streams of its process (pure, no server)', () => {
  it('stand in for a query once history shows the task that logged them completed', () => {
    const { relay, log } = relayedLog();
    logged(relay, FIRST, 3, 0, 2);
    // Logged but not yet completed in history: not part of the log yet.
    expect(log.observe([started(FIRST)])).toBe(false);
    expect(log.read(0)).toBeUndefined();
    expect(log.observe([completed(3)])).toBe(true);
    expect(texts(log.read(0))).toEqual(['t0', 't1']);
    logged(relay, FIRST, 9, 2, 1);
    log.observe([completed(9)]);
    expect(texts(log.read(2))).toEqual(['t2']);
    log.close();
  });

  it('are not enough when the latest completed task relayed nothing here (the tail queries)', () => {
    const { relay, log } = relayedLog();
    logged(relay, FIRST, 3, 0, 2);
    // Task 9 ran on another worker, or logged nothing: what it logged is unknown.
    log.observe([started(FIRST), completed(3), completed(9)]);
    expect(log.read(0)).toBeUndefined();
  });

  it("prove a task that logged nothing when it said the log's length (a decision)", () => {
    const { relay, log } = relayedLog();
    logged(relay, FIRST, 3, 0, 2);
    relay.publish(RUN, { execution: FIRST, task: 9, end: 2 });
    log.observe([started(FIRST), completed(3), completed(9)]);
    expect(texts(log.read(0))).toEqual(['t0', 't1']);
  });

  it('need a fresh report of history: not after a failed poll, nor twice for one report', () => {
    const { relay, log } = relayedLog();
    logged(relay, FIRST, 3, 0, 1);
    log.observe([started(FIRST), completed(3)]);
    expect(texts(log.read(0))).toEqual(['t0']);
    // The idle read covers a watch that missed events: it queries.
    expect(log.read(1)).toBeUndefined();
    logged(relay, FIRST, 9, 1, 1);
    log.observe([completed(9)]);
    log.observe([]);
    expect(log.read(1)).toBeUndefined();
    // Events after a completion, before the read (an activity started), keep the report fresh.
    logged(relay, FIRST, 12, 2, 1);
    expect(log.observe([completed(12)])).toBe(true);
    expect(log.observe([temporal.api.history.v1.HistoryEvent.fromObject({})])).toBe(false);
    expect(texts(log.read(2))).toEqual(['t2']);
  });

  it('of a task that never completed are never shown, even below a later completed task', () => {
    const { relay, log } = relayedLog();
    logged(relay, FIRST, 3, 0, 1);
    // Task 9 failed (worker crash) after logging t1, t2; its retry, task 13, logged t1 only.
    logged(relay, FIRST, 9, 1, 2);
    relay.publish(RUN, {
      execution: FIRST,
      task: 13,
      end: 2,
      chunk: makeChunk(RUN, 'finish', { finishReason: 'stop', usage: ZERO_USAGE }),
    });
    log.observe([started(FIRST), completed(3), completed(13)]);
    const chunks = log.read(0);
    expect(chunks?.map((chunk) => chunk.type)).toEqual(['text-delta', 'finish']);
  });

  it('of a task completed after a failed attempt are not trusted: its attempts share an id', () => {
    const { relay, log } = relayedLog();
    logged(relay, FIRST, 3, 0, 1);
    log.observe([started(FIRST), completed(3)]);
    expect(texts(log.read(0))).toEqual(['t0']);
    // Attempt 1 of the next task (started event 7) failed; attempt 2 (recorded as started event
    // 10 only when an attempt completes) logged t1, t2 here and failed too; attempt 3, with the
    // same id 10, completed on another worker with other chunks.
    logged(relay, FIRST, 10, 1, 2);
    log.observe([
      temporal.api.history.v1.HistoryEvent.fromObject({
        workflowTaskFailedEventAttributes: { startedEventId: 7 },
      }),
      completed(10),
    ]);
    expect(log.read(1)).toBeUndefined();
    // Later tasks have ids of their own again: their chunks are used once the gap is read.
    logged(relay, FIRST, 16, 3, 1);
    log.observe([completed(16)]);
    expect(log.read(3)).toEqual([text(3)]);
  });

  it('from another execution never match the one the watch reads', () => {
    const { relay, log } = relayedLog();
    logged(relay, FIRST, 3, 0, 1);
    log.observe([started(FIRST), completed(3)]);
    expect(texts(log.read(0))).toEqual(['t0']);
    // Continued as new: the new execution's task ids start again.
    log.observe([
      completed(9),
      { workflowExecutionContinuedAsNewEventAttributes: { newExecutionRunId: 'execution-2' } },
    ]);
    logged(relay, FIRST, 3, 1, 1);
    logged(relay, 'execution-2', 3, 1, 1);
    log.observe([started('execution-2', FIRST), completed(3)]);
    expect(texts(log.read(1))).toEqual(['t1']);
    // A watch that began at a continued execution cannot name it: nothing relayed matches.
    const late = new RelayedLog(relay, RUN);
    logged(relay, 'execution-2', 9, 2, 1);
    late.observe([started('execution-2', FIRST), completed(9)]);
    expect(late.read(2)).toBeUndefined();
  });

  it('hold what arrives before the watch names the execution', () => {
    const { relay, log } = relayedLog();
    logged(relay, 'other-execution', 3, 0, 1);
    logged(relay, FIRST, 3, 0, 1);
    relay.publish(RUN, { execution: FIRST, task: 3, end: 1 });
    log.observe([started(FIRST), completed(3)]);
    expect(texts(log.read(0))).toEqual(['t0']);
  });
});

describe('the chunks a run that does local work relays at close (pure, no server)', () => {
  const finish = makeChunk(RUN, 'finish', { finishReason: 'stop', usage: ZERO_USAGE });
  /** A worker of this process logging `chunks` from `offset` in a run that does local work. */
  function loggedAtClose(
    relay: LogRelay,
    execution: string,
    task: number,
    chunks: Chunk[],
    offset = 0,
  ) {
    chunks.forEach((chunk, i) =>
      relay.publish(RUN, { execution, task, end: offset + i + 1, chunk, atClose: true }),
    );
  }
  const event = (attributes: Record<string, unknown>): HistoryEvent =>
    temporal.api.history.v1.HistoryEvent.fromObject(attributes);
  const closedBy = (kind: string) => event({ [kind]: {} });

  it('never stand in for a query per task: their task is not certain', () => {
    const { relay, log } = relayedLog();
    loggedAtClose(relay, FIRST, 3, [text(0), text(1)]);
    expect(log.observe([started(FIRST), completed(3)])).toBe(true);
    expect(log.read(0)).toBeUndefined();
  });

  it('make the task they came in prove nothing, though it relayed a chunk per task before them', () => {
    // A run that turned out to do local work: its first task relayed its start per task, then
    // the rest of what it logged at close. Before or after the watch names the execution.
    for (const watchFirst of [false, true]) {
      const { relay, log } = relayedLog();
      if (watchFirst) log.observe([started(FIRST)]);
      logged(relay, FIRST, 3, 0, 1);
      loggedAtClose(relay, FIRST, 3, [text(1), text(2)], 1);
      expect(log.observe(watchFirst ? [completed(3)] : [started(FIRST), completed(3)])).toBe(true);
      expect(log.read(0)).toBeUndefined();
    }
  });

  it('are the log through its finish once the run completed or failed by its own command', () => {
    for (const kind of [
      'workflowExecutionCompletedEventAttributes',
      'workflowExecutionFailedEventAttributes',
    ]) {
      const { relay, log } = relayedLog();
      // Logged in tasks 3 and 7, whichever each chunk's task really was.
      loggedAtClose(relay, FIRST, 3, [text(0)]);
      loggedAtClose(relay, FIRST, 7, [text(1), finish], 1);
      log.observe([started(FIRST), completed(3), completed(11), closedBy(kind)]);
      expect(log.read(0)?.map((chunk) => chunk.type)).toEqual([
        'text-delta',
        'text-delta',
        'finish',
      ]);
      // From a later offset too (a stream that joined mid-way).
      loggedAtClose(relay, FIRST, 7, [text(1), finish], 1);
      expect(texts(log.read(1))).toEqual(['t1', undefined]);
    }
  });

  it('are not trusted when any workflow task of the execution failed or timed out', () => {
    for (const kind of [
      'workflowTaskFailedEventAttributes',
      'workflowTaskTimedOutEventAttributes',
    ]) {
      const { relay, log } = relayedLog();
      // A failed attempt relayed t0 and a finish; its retry ran the local work again.
      loggedAtClose(relay, FIRST, 3, [text(0), finish]);
      log.observe([started(FIRST), event({ [kind]: {} }), completed(3)]);
      log.observe([closedBy('workflowExecutionCompletedEventAttributes')]);
      expect(log.read(0)).toBeUndefined();
    }
  });

  it('are not trusted when the run was ended from outside: its last task may never have completed', () => {
    for (const kind of [
      'workflowExecutionTerminatedEventAttributes',
      'workflowExecutionTimedOutEventAttributes',
      'workflowExecutionCanceledEventAttributes',
    ]) {
      const { relay, log } = relayedLog();
      loggedAtClose(relay, FIRST, 3, [text(0), finish]);
      log.observe([started(FIRST), closedBy(kind)]);
      expect(log.read(0)).toBeUndefined();
    }
  });

  it('need every chunk through the finish, of the execution the watch reads', () => {
    const gap = relayedLog();
    // The chunk at offset 1 was logged before this stream subscribed (or in replay).
    loggedAtClose(gap.relay, FIRST, 3, [text(0)]);
    loggedAtClose(gap.relay, FIRST, 7, [finish], 2);
    gap.log.observe([started(FIRST), closedBy('workflowExecutionCompletedEventAttributes')]);
    expect(gap.log.read(0)).toBeUndefined();
    const unfinished = relayedLog();
    loggedAtClose(unfinished.relay, FIRST, 3, [text(0), text(1)]);
    unfinished.log.observe([started(FIRST), closedBy('workflowExecutionCompletedEventAttributes')]);
    expect(unfinished.log.read(0)).toBeUndefined();
    const other = relayedLog();
    loggedAtClose(other.relay, 'other-execution', 3, [text(0), finish]);
    other.log.observe([started(FIRST), closedBy('workflowExecutionCompletedEventAttributes')]);
    expect(other.log.read(0)).toBeUndefined();
  });

  it('tell while a workflow task is scheduled or running, until it ends or the run closes', () => {
    const { log } = relayedLog();
    const scheduled: HistoryEvent = { workflowTaskScheduledEventAttributes: {} };
    const running: HistoryEvent = { workflowTaskStartedEventAttributes: {} };
    expect(log.workflowTaskPending).toBe(false);
    log.observe([started(FIRST), scheduled]);
    expect(log.workflowTaskPending).toBe(true);
    log.observe([running, completed(3)]);
    expect(log.workflowTaskPending).toBe(false);
    log.observe([scheduled, running]);
    expect(log.workflowTaskPending).toBe(true);
    log.observe([{ workflowTaskFailedEventAttributes: {} }]);
    expect(log.workflowTaskPending).toBe(false);
    log.observe([scheduled, { workflowTaskTimedOutEventAttributes: {} }]);
    expect(log.workflowTaskPending).toBe(false);
    // Terminated with a task pending: none will end it.
    log.observe([scheduled, { workflowExecutionTerminatedEventAttributes: {} }]);
    expect(log.workflowTaskPending).toBe(false);
    // A failed poll may have missed the task's end.
    log.observe([scheduled]);
    log.observe([]);
    expect(log.workflowTaskPending).toBe(false);
    log.close();
  });
});
