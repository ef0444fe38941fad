/** The bounds of `/links` refusals: a pure module, no server. */
import { describe, expect, it } from '@jest/globals';
import { LinkRefusals, RECENT_REFUSALS } from '../../src/server/link-refusals.js';

const T0 = Date.parse('2026-12-03T12:00:00Z');

describe('link refusals', () => {
  it("limits an address past its budget until its minute ends, and no other address's", () => {
    const refusals = new LinkRefusals({ perMinute: 3 });
    for (let i = 0; i < 3; i++) {
      expect(refusals.retryAfter('10.0.0.1', T0 + i)).toBeUndefined();
      refusals.record('10.0.0.1', 'LINK_INVALID', 'run-1', T0 + i);
    }
    expect(refusals.retryAfter('10.0.0.1', T0 + 10_000)).toBe(50);
    expect(refusals.retryAfter('10.0.0.2', T0 + 10_000)).toBeUndefined();
    expect(refusals.retryAfter('10.0.0.1', T0 + 60_000)).toBeUndefined();
    expect(refusals.snapshot()).toMatchObject({ counts: { LINK_INVALID: 3 }, rateLimited: 1 });
  });

  it('keeps the latest refusals only, with run ids cut to 200 characters', () => {
    const refusals = new LinkRefusals({ perMinute: 1 });
    for (let i = 0; i < RECENT_REFUSALS + 50; i++) {
      refusals.record(`a${i}`, 'LINK_INVALID', `${i}-${'x'.repeat(100_000)}`, T0);
    }
    const { recent, counts } = refusals.snapshot();
    expect(counts.LINK_INVALID).toBe(RECENT_REFUSALS + 50);
    expect(recent).toHaveLength(RECENT_REFUSALS);
    expect(recent[0]).toMatchObject({ address: 'a50', code: 'LINK_INVALID' });
    expect(recent.every((r) => r.runId!.length === 200)).toBe(true);
  });

  it('lets one refusal per key through to the run', () => {
    const refusals = new LinkRefusals();
    expect(refusals.firstOf('LINK_EXPIRED token-1')).toBe(true);
    expect(refusals.firstOf('LINK_EXPIRED token-1')).toBe(false);
    expect(refusals.firstOf('TOOL_CALL_ALREADY_DECIDED token-1')).toBe(true);
  });

  it('refuses a budget that is not a whole number of refusals', () => {
    expect(() => new LinkRefusals({ perMinute: 0 })).toThrow(/perMinute must be a whole number/);
  });
});
