import { describe, expect, it } from '@jest/globals';
import { checkRules, mergeRules, parseDuration } from '../../src/common/approval-rules.js';
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
});
