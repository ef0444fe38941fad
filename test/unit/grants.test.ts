import { describe, expect, it } from '@jest/globals';
import {
  EMPTY_GRANTS,
  grantCovers,
  grantDuration,
  grantRequestOf,
  liveGrants,
  pruned,
  revokeProblem,
  withGrant,
  withoutGrant,
} from '../../src/common/grants.js';
import { toolCallFingerprint } from '../../src/common/fingerprint.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3_600_000;
const request = grantRequestOf(
  { agentId: 'ops', toolName: 'deleteRecord', resourceId: 'acme', threadId: 't1', for: '2h' },
  { id: 'alice' },
);
const { state, grant } = withGrant(EMPTY_GRANTS, request, 'grant-1', T0);
const run = { agentId: 'ops', resourceId: 'acme', threadId: 't1' };
const call = { toolName: 'deleteRecord', fingerprint: toolCallFingerprint('deleteRecord', {}) };

describe('grants (pure)', () => {
  it('covers a call of its tool on its thread until it expires', () => {
    expect(grant.expiresAt).toBe(new Date(T0 + 2 * HOUR).toISOString());
    expect(grantCovers(grant, run, call, T0 + HOUR)).toBe(true);
    expect(grantCovers(grant, run, call, T0 + 2 * HOUR)).toBe(false);
  });

  it('does not cover another thread, resource, agent, tool, or a run without a resource', () => {
    const later = T0 + 1;
    expect(grantCovers(grant, { ...run, threadId: 't2' }, call, later)).toBe(false);
    expect(grantCovers(grant, { ...run, resourceId: 'other' }, call, later)).toBe(false);
    expect(grantCovers(grant, { ...run, resourceId: undefined }, call, later)).toBe(false);
    expect(grantCovers(grant, { ...run, agentId: 'x' }, call, later)).toBe(false);
    expect(grantCovers(grant, run, { ...call, toolName: 'pay' }, later)).toBe(false);
  });

  it('binds to arguments by fingerprint when given them', () => {
    const bound = grantRequestOf({ ...request, for: '1h', args: { id: 'a' } }, undefined);
    const { grant: byArgs } = withGrant(EMPTY_GRANTS, bound, 'grant-2', T0);
    const with_ = (args: unknown) => ({
      ...call,
      fingerprint: toolCallFingerprint(call.toolName, args),
    });
    expect(grantCovers(byArgs, run, with_({ id: 'a' }), T0)).toBe(true);
    expect(grantCovers(byArgs, run, with_({ id: 'b' }), T0)).toBe(false);
  });

  it('refuses malformed and overlong durations, and oversized arguments, with INVALID_GRANT', () => {
    for (const bad of ['soon', -5, 0, '91 days', null]) {
      expect(() => grantDuration(bad)).toThrow(expect.objectContaining({ code: 'INVALID_GRANT' }));
    }
    expect(grantDuration('4h')).toBe(4 * HOUR);
    const huge = { id: 'x'.repeat(3000) };
    expect(() => grantRequestOf({ ...request, for: '1h', args: huge }, undefined)).toThrow(
      expect.objectContaining({ code: 'INVALID_GRANT' }),
    );
  });

  it('tells an unknown, a revoked and an expired grant apart when revoking', () => {
    expect(revokeProblem(state, 'grant-1', T0)).toBeUndefined();
    expect(revokeProblem(state, 'grant-x', T0)?.code).toBe('GRANT_NOT_FOUND');
    const revoked = withoutGrant(state, { grantId: 'grant-1' }, T0).state;
    expect(liveGrants(revoked, T0)).toEqual([]);
    expect(revokeProblem(revoked, 'grant-1', T0)?.code).toBe('GRANT_ALREADY_REVOKED');
    const expired = pruned(state, T0 + 3 * HOUR);
    expect(expired.ended).toMatchObject([{ grantId: 'grant-1', ended: 'expired' }]);
    expect(revokeProblem(expired, 'grant-1', T0 + 3 * HOUR)?.message).toContain('expired');
    expect(pruned(state, T0)).toBe(state);
  });
});
