import { describe, expect, it } from '@jest/globals';
import { temporal } from '@temporalio/proto';
import { mayHaveFinished } from '../../src/temporal-client/finish-points.js';
import type { HistoryEvent } from '../../src/temporal-client/run-ending.js';

const event = (attributes: object): HistoryEvent =>
  temporal.api.history.v1.HistoryEvent.fromObject(attributes);
const completed = event({ workflowTaskCompletedEventAttributes: { startedEventId: 3 } });
const activity = event({ activityTaskScheduledEventAttributes: {} });
const child = event({ startChildWorkflowExecutionInitiatedEventAttributes: {} });
const timer = event({ timerStartedEventAttributes: {} });
const runCompleted = event({ workflowExecutionCompletedEventAttributes: {} });
const status = (data: string) =>
  event({
    upsertWorkflowSearchAttributesEventAttributes: {
      searchAttributes: {
        indexedFields: { TollgateStatus: { data: new TextEncoder().encode(data) } },
      },
    },
  });

describe('where a run may have reached a finish (pure)', () => {
  it('not while its latest task started an activity or a child run under status running', () => {
    expect(mayHaveFinished([completed, activity])).toBe(false);
    expect(mayHaveFinished([completed, status('"running"'), activity])).toBe(false);
    expect(mayHaveFinished([completed, child])).toBe(false);
  });

  it('when its latest task published a waiting status, even beside new work', () => {
    expect(mayHaveFinished([completed, status('"suspended"')])).toBe(true);
    expect(mayHaveFinished([completed, status('"awaiting-approval"'), activity])).toBe(true);
  });

  it('when its latest task started nothing it waits on (a timer is a wait), or the run closed', () => {
    expect(mayHaveFinished([completed])).toBe(true);
    expect(mayHaveFinished([completed, timer])).toBe(true);
    expect(mayHaveFinished([completed, activity, completed, runCompleted])).toBe(true);
  });

  it('judges the latest task alone: a history so far whose earlier task parked the run', () => {
    const parkedThenApproved = [
      completed,
      status('"suspended"'),
      completed,
      status('"running"'),
      activity,
    ];
    expect(mayHaveFinished(parkedThenApproved)).toBe(false);
  });

  it('counts a status it cannot read as a wait', () => {
    expect(mayHaveFinished([completed, status('not json'), activity])).toBe(true);
  });
});
