/**
 * The verdict of `tollgate doctor --probe` from its timings (pure, no server). A throttled
 * transfer queue shows as long wakes only while the rounds' own work is quick: slow rounds (a
 * shared host the load average does not show) find the limiter's next read already due, so the
 * probe must call itself `busy` there instead of calling a default server OK.
 */
import { describe, expect, it } from '@jest/globals';
// CommonJS: its `temporal` namespace only comes through the default import.
import proto from '@temporalio/proto';
import { judgeProbe, THROTTLE_HIDDEN_MS, timingsOf } from '../../src/cli/doctor-probe.js';

const EventType = proto.temporal.api.enums.v1.EventType;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** A probe history: per round, its workflow task, then its activity, times in ms. */
function history(
  rounds: Array<{ task: [number, number]; activity: [number, number, number] }>,
): HistoryEvent[] {
  let eventId = 0;
  const at = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });
  // `fromObject` turns the numbers into the Longs the generated types want.
  const event = (eventType: number, ms: number, extra: object = {}): HistoryEvent =>
    proto.temporal.api.history.v1.HistoryEvent.fromObject({
      eventId: ++eventId,
      eventType,
      eventTime: at(ms),
      ...extra,
    });
  const events: HistoryEvent[] = [];
  for (const { task, activity } of rounds) {
    events.push(event(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, task[0]));
    events.push(event(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, task[1]));
    const scheduled = event(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, activity[0]);
    events.push(scheduled);
    events.push(
      event(EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, activity[1], {
        activityTaskStartedEventAttributes: { scheduledEventId: scheduled.eventId },
      }),
    );
    events.push(event(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, activity[2]));
  }
  return events;
}

/** `count` rounds: a task of `taskMs`, dispatch `dispatchMs`, activity `runMs`, wake `wakeMs`. */
function rounds(count: number, ms: { task: number; dispatch: number; run: number; wake: number }) {
  const out: Array<{ task: [number, number]; activity: [number, number, number] }> = [];
  let clock = 1000;
  for (let i = 0; i < count; i++) {
    const started = clock;
    const completed = started + ms.task;
    const activityStarted = completed + ms.dispatch;
    const activityCompleted = activityStarted + ms.run;
    out.push({
      task: [started, completed],
      activity: [completed, activityStarted, activityCompleted],
    });
    clock = activityCompleted + ms.wake;
  }
  return out;
}

describe('the server probe verdict (pure, no server)', () => {
  it('reads wake, dispatch and each round’s own work from the history', () => {
    const timings = timingsOf(history(rounds(3, { task: 4, dispatch: 7, run: 2, wake: 40 })));
    expect(timings.dispatchMs).toEqual([7, 7, 7]);
    // The last activity's wake is its next task: none in this history.
    expect(timings.wakeMs).toEqual([40, 40]);
    // The task and the activity's run, not the waits for the server's queues.
    expect(timings.ownMs).toEqual([6, 6, 6]);
  });

  it('calls a round throttled by its waits on the server’s queues, wherever they fall', () => {
    const quiet = { loadAverage: 0.3, cpus: 2 };
    const judged = (ms: { dispatch: number; wake: number }) =>
      judgeProbe({ ...timingsOf(history(rounds(10, { task: 3, run: 1, ...ms }))), ...quiet });
    // Temporal's defaults: both hops wait for the throttled transfer queue.
    const defaults = judged({ dispatch: 40, wake: 42 });
    expect(defaults).toMatchObject({ transfer: 'throttled', eager: false, busy: false });
    expect(defaults.advice.join('\n')).toContain('history.transferProcessorMaxPollRPS to 2000');
    expect(defaults.advice.join('\n')).toContain('system.enableActivityEagerExecution');
    // Eager dispatch on, the transfer queue throttled: the whole wait falls on the wake.
    expect(judged({ dispatch: 0, wake: 30 })).toMatchObject({ transfer: 'throttled', eager: true });
    // The transfer queue tuned, eager dispatch off: two quick hops.
    const notEager = judged({ dispatch: 6, wake: 5 });
    expect(notEager).toMatchObject({ transfer: 'ok', eager: false });
    expect(notEager.advice).toEqual([
      expect.stringContaining('system.enableActivityEagerExecution'),
    ]);
    // Both tuned.
    expect(judged({ dispatch: 0, wake: 2 })).toMatchObject({
      transfer: 'ok',
      eager: true,
      busy: false,
      advice: [],
    });
  });

  it('is busy, not OK, when the rounds are too slow to show a throttle, at any load average', () => {
    const slow = judgeProbe({
      ...timingsOf(
        history(rounds(10, { task: THROTTLE_HIDDEN_MS, dispatch: 0, run: 10, wake: 3 })),
      ),
      loadAverage: 0.3,
      cpus: 2,
    });
    expect(slow).toMatchObject({
      transfer: 'ok',
      busy: true,
      ownMedianMs: THROTTLE_HIDDEN_MS + 10,
    });
  });

  it('is busy when the load average exceeds the CPUs', () => {
    const verdict = judgeProbe({
      ...timingsOf(history(rounds(10, { task: 3, dispatch: 0, run: 1, wake: 2 }))),
      loadAverage: 2.5,
      cpus: 2,
    });
    expect(verdict.busy).toBe(true);
  });
});
