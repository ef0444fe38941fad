import { describe, expect, it } from '@jest/globals';
import { checkDecisionSettings } from '../../src/temporal-client/decision-settings.js';
import { deadlineProblem, parseDeadline } from '../../src/common/decision-deadline.js';
import { statusOfErrorCode } from '../../src/common/http-api.js';
import { exitCodeOfError } from '../../src/cli/exit-codes.js';
import { checkDecisionInput } from '../../src/workflows/decision-input.js';

describe('decision deadlines (pure)', () => {
  it('parses ISO-8601 instants with a zone, and nothing else', () => {
    expect(parseDeadline('2026-05-01T12:00:05Z')).toBe(Date.UTC(2026, 4, 1, 12, 0, 5));
    expect(parseDeadline('2026-05-01T12:00:05.250+02:00')).toBe(
      Date.UTC(2026, 4, 1, 10, 0, 5, 250),
    );
    for (const bad of [
      '2026-05-01',
      '2026-05-01T12:00:05',
      'tomorrow',
      '',
      1_777_000_000_000,
      null,
    ]) {
      expect(parseDeadline(bad)).toBeUndefined();
    }
  });

  it('refuses a decision only after its deadline, naming both instants', () => {
    const deadline = '2026-05-01T12:00:05.000Z';
    const at = Date.parse(deadline);
    expect(deadlineProblem(undefined, at + 1)).toBeUndefined();
    expect(deadlineProblem(deadline, at - 1)).toBeUndefined();
    expect(deadlineProblem(deadline, at)).toBeUndefined();
    expect(deadlineProblem(deadline, at + 1500)).toBe(
      'The decision reached the run at 2026-05-01T12:00:06.500Z, 1500 ms after its deadline 2026-05-01T12:00:05.000Z; it was not applied, send a new decision if it still stands.',
    );
  });

  it('accepts a deadline field in a decision and refuses a malformed one', () => {
    expect(checkDecisionInput({ deadline: '2026-05-01T12:00:05Z' })).toMatchObject({ ok: true });
    expect(checkDecisionInput({ deadline: 'in 5 minutes' })).toEqual({
      ok: false,
      message:
        'Decision field "deadline" must be an ISO-8601 instant with a zone, e.g. "2026-05-01T12:00:05Z", not "in 5 minutes".',
    });
    expect(checkDecisionInput({ deadline: 5 })).toMatchObject({ ok: false });
  });

  it('checks the decision settings, with defaults', () => {
    expect(checkDecisionSettings(undefined)).toEqual({
      waitMs: 20_000,
      deadlineMarginMs: 5_000,
      workerSeenWithinMs: 75_000,
    });
    expect(checkDecisionSettings({ wait: '30 seconds', deadlineMargin: 1000 })).toEqual({
      waitMs: 30_000,
      deadlineMarginMs: 1000,
      workerSeenWithinMs: 75_000,
    });
    expect(() => checkDecisionSettings({ wait: -1 })).toThrow(/decisions\.wait must be/);
    expect(() => checkDecisionSettings({ timeout: 5 } as never)).toThrow(
      'Unknown setting decisions.timeout; known: wait, deadlineMargin, workerSeenWithin.',
    );
  });

  it('maps the new codes to HTTP statuses and CLI exit codes', () => {
    expect(statusOfErrorCode('WORKER_UNAVAILABLE')).toBe(503);
    expect(statusOfErrorCode('DECISION_NOT_CONFIRMED')).toBe(504);
    expect(statusOfErrorCode('DECISION_DEADLINE_PASSED')).toBe(409);
    expect(exitCodeOfError('WORKER_UNAVAILABLE')).toBe(7);
    expect(exitCodeOfError('DECISION_NOT_CONFIRMED')).toBe(7);
    expect(exitCodeOfError('DECISION_DEADLINE_PASSED')).toBe(5);
  });
});
