import { describe, expect, it } from '@jest/globals';
import {
  checkRules,
  looseningsOf,
  mergeRules,
  parseDuration,
  tightenRules,
} from '../../src/common/approval-rules.js';
import { isTollgateError } from '../../src/common/errors.js';

describe('approval rule merging and checks (pure, no server)', () => {
  it('merges per field, the first layer that sets a field winning', () => {
    const tool = { timeoutMs: 1000, approvers: ['bob'] };
    const agent = { timeoutMs: 5000, onTimeout: 'fail' as const, quorum: 2 };
    const request = { approvers: undefined, onTimeout: 'approve' as const };
    expect(mergeRules(request, tool, agent)).toEqual({
      timeoutMs: 1000,
      onTimeout: 'approve',
      approvers: ['bob'],
      quorum: 2,
    });
  });

  it('lets a request only tighten: approvers narrow, larger quorum, earlier deadline, four-eyes on', () => {
    const base = {
      approvers: ['role:ops'],
      quorum: 2,
      timeoutMs: 5000,
      onTimeout: 'approve' as const,
    };
    expect(
      tightenRules(base, {
        approvers: ['bob'],
        quorum: 1,
        timeoutMs: 1000,
        onTimeout: 'approve',
        separateRequester: false,
      }),
    ).toEqual({
      approvers: ['role:ops'],
      alsoApprovers: ['bob'],
      quorum: 2,
      // The request's deadline comes first and never approves.
      timeoutMs: 1000,
      onTimeout: 'decline',
    });
    expect(
      tightenRules(base, { timeoutMs: 9000, separateRequester: true, onTimeout: 'fail' }),
    ).toEqual({ ...base, onTimeout: 'fail', separateRequester: true });
    expect(tightenRules({}, { approvers: ['bob'], quorum: 3 })).toEqual({
      approvers: ['bob'],
      quorum: 3,
    });
    expect(tightenRules(base, undefined)).toBe(base);
  });

  it('names the request fields that can only loosen', () => {
    expect(looseningsOf(false, { onTimeout: 'approve', separateRequester: false })).toEqual([
      'requireToolApproval',
      'approval.onTimeout',
      'approval.separateRequester',
    ]);
    expect(looseningsOf(true, { onTimeout: 'decline', separateRequester: true })).toEqual([]);
    expect(looseningsOf('named', undefined)).toEqual([]);
  });

  it('skips absent layers and leaves the inputs unchanged', () => {
    const agent = { timeoutMs: 5000 };
    expect(mergeRules(undefined, agent, undefined)).toEqual({ timeoutMs: 5000 });
    expect(agent).toEqual({ timeoutMs: 5000 });
    expect(mergeRules()).toEqual({});
  });

  it('parses durations in words or ms, and names the field of a bad one', () => {
    expect(parseDuration('3 days', 'timeout')).toBe(3 * 86_400_000);
    expect(parseDuration('90s', 'timeout')).toBe(90_000);
    expect(parseDuration(250, 'timeout')).toBe(250);
    const error = (() => {
      try {
        return parseDuration('soon', 'approval.timeout');
      } catch (e) {
        return e;
      }
    })();
    expect(isTollgateError(error, 'INVALID_OPTIONS')).toBe(true);
    expect((error as Error).message).toContain('approval.timeout');
  });

  it('refuses an unknown onTimeout, bad approvers and a quorum below 1 as INVALID_OPTIONS', () => {
    const bad = [
      { onTimeout: 'retry' as never },
      { approvers: ['bob', ''] },
      { quorum: 0 },
      { quorum: 1.5 },
    ];
    for (const rules of bad) {
      expect(() => checkRules(rules, 'tools.deploy')).toThrow(/tools\.deploy/);
    }
    expect(checkRules({ quorum: 2, approvers: ['role:ops'] }, 'x')).toEqual({
      quorum: 2,
      approvers: ['role:ops'],
    });
  });
  it('checks escalation levels: 1 to 10 of them, each after a duration or a number of reminders, to usable approvers', () => {
    const ok = {
      escalate: [
        { afterReminders: 2, to: ['role:managers'] },
        { afterMs: 60_000, to: ['carol'] },
      ],
    };
    expect(checkRules(ok, 'tools.wire')).toEqual(ok);
    const bad: Array<[unknown, RegExp]> = [
      [[], /tools\.wire\.escalate must be 1 to 10 levels/],
      [Array.from({ length: 11 }, () => ({ afterMs: 1, to: ['a'] })), /1 to 10 levels/],
      [[{ to: ['a'] }], /tools\.wire\.escalate\[0\]\.after must be a duration/],
      [[{ afterMs: 1, afterReminders: 1, to: ['a'] }], /\[0\]\.after must be/],
      [[{ afterReminders: 0, to: ['a'] }], /\[0\]\.after must be/],
      [[{ afterReminders: 1.5, to: ['a'] }], /\[0\]\.after must be/],
      [[{ afterMs: -5, to: ['a'] }], /\[0\]\.after must be/],
      [[{ afterMs: 1000, to: [] }], /tools\.wire\.escalate\[0\]\.to/],
    ];
    for (const [escalate, message] of bad) {
      expect(() => checkRules({ escalate } as never, 'tools.wire')).toThrow(message);
    }
  });
});
