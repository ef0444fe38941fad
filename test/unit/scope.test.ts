import { describe, expect, it } from '@jest/globals';
import { isTollgateError } from '../../src/common/errors.js';
import {
  checkScope,
  exactLimits,
  matchesPattern,
  mayAct,
  maySeeRun,
  mayUseAgent,
  mayUseResource,
  requireAction,
  requireResource,
} from '../../src/common/scope.js';
import { checkAuthConfig } from '../../src/server/auth.js';

function errorOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('scopes (no server)', () => {
  it('matches exact names and * patterns, and nothing else', () => {
    expect(matchesPattern('billing-*', 'billing-eu')).toBe(true);
    expect(matchesPattern('billing-*', 'billing-')).toBe(true);
    expect(matchesPattern('billing-*', 'ops-billing-eu')).toBe(false);
    expect(matchesPattern('acme/*', 'acme/team-1')).toBe(true);
    expect(matchesPattern('acme/*', 'acme')).toBe(false);
    expect(matchesPattern('a.c', 'abc')).toBe(false);
    expect(matchesPattern('*-(eu)', 'x-(eu)')).toBe(true);
    expect(matchesPattern('bob', 'bobby')).toBe(false);
  });

  it('treats no scope and {} as an operator: every agent, resource and action', () => {
    for (const scope of [undefined, {}]) {
      expect(mayAct(scope, 'decide')).toBe(true);
      expect(mayUseAgent(scope, 'any')).toBe(true);
      expect(mayUseResource(scope, undefined)).toBe(true);
      expect(maySeeRun(scope, { agentId: 'a', resourceId: undefined })).toBe(true);
    }
  });

  it('limits actions, with admin standing for all of them', () => {
    const reader = { actions: ['read' as const] };
    expect(mayAct(reader, 'read')).toBe(true);
    expect(mayAct(reader, 'decide')).toBe(false);
    expect(mayAct(reader, 'start')).toBe(false);
    expect(mayAct({ actions: ['admin'] }, 'decide')).toBe(true);
    const refusal = errorOf(() => requireAction(reader, 'decide'));
    expect(isTollgateError(refusal, 'FORBIDDEN')).toBe(true);
  });

  it('keeps runs without a resource from callers limited by resource', () => {
    const bob = { resources: ['bob', 'acme/*'] };
    expect(mayUseResource(bob, 'bob')).toBe(true);
    expect(mayUseResource(bob, 'acme/x')).toBe(true);
    expect(mayUseResource(bob, 'alice')).toBe(false);
    expect(mayUseResource(bob, undefined)).toBe(false);
    expect(maySeeRun(bob, { agentId: 'a', resourceId: undefined })).toBe(false);
    expect(maySeeRun({ agents: ['b'] }, { agentId: 'a', resourceId: 'bob' })).toBe(false);
    expect(maySeeRun(bob, { agentId: undefined, resourceId: 'bob' })).toBe(false);
    const refusal = errorOf(() => requireResource(bob, 'alice'));
    expect(refusal).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('"alice"'),
    });
  });

  it('pushes exact lists into listings and leaves patterns to filtering', () => {
    expect(exactLimits(undefined)).toEqual({ needsResource: false, patterns: false });
    expect(exactLimits({ agents: ['a', 'b'], resources: ['bob'] })).toEqual({
      agents: ['a', 'b'],
      resources: ['bob'],
      needsResource: true,
      patterns: false,
    });
    expect(exactLimits({ agents: ['a-*'], resources: ['acme/*'] })).toEqual({
      needsResource: true,
      patterns: true,
    });
  });

  it('refuses malformed scopes naming the field', () => {
    const cases: Array<[unknown, string]> = [
      [[], 'scope must be an object'],
      [{ actions: ['fly'] }, 'scope.actions holds "fly"'],
      [{ agents: [] }, 'scope.agents must be a non-empty array'],
      [{ resources: [''] }, 'scope.resources must be a non-empty array'],
      [{ tenants: ['x'] }, 'scope.tenants is not a scope field'],
    ];
    for (const [raw, message] of cases) {
      const error = errorOf(() => checkScope(raw));
      expect(error).toMatchObject({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining(message),
      });
    }
    expect(checkScope({ agents: ['a'], actions: ['read'] })).toEqual({
      agents: ['a'],
      actions: ['read'],
    });
  });

  it('checks token scopes in the auth config, naming the token', () => {
    const error = errorOf(() =>
      checkAuthConfig(
        [
          { token: 't1', id: 'ops' },
          { token: 't2', id: 'bob', scopes: { actions: ['approve'] } },
        ],
        'TOLLGATE_TOKENS',
      ),
    );
    expect(error).toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('TOLLGATE_TOKENS: tokens.1.scopes.actions holds "approve"'),
    });
    const config = checkAuthConfig([{ token: 't', id: 'bob', scopes: { resources: ['bob'] } }]);
    expect(config.tokens[0]).toEqual({ token: 't', id: 'bob', scopes: { resources: ['bob'] } });
  });
});
