import { describe, expect, it } from '@jest/globals';
import { checkDecisionInput } from '../../src/workflows/decision-input.js';

const problem = (raw: unknown) => {
  const checked = checkDecisionInput(raw);
  return checked.ok ? undefined : checked.message;
};

describe('the shape check of an arriving decision (pure, no server)', () => {
  it('takes no input as an empty decision, and a well-formed one as it is', () => {
    expect(checkDecisionInput(undefined)).toEqual({ ok: true, value: {} });
    expect(checkDecisionInput(null)).toEqual({ ok: true, value: {} });
    const full = {
      toolCallId: 'c1',
      fingerprint: 'fp',
      reason: 'ok',
      decidedBy: { id: 'bob', roles: ['ops'] },
      resumeData: { a: 1 },
      args: { b: 2 },
      agentId: 'ops',
      deadline: '2026-05-01T12:00:05Z',
    };
    expect(checkDecisionInput(full)).toEqual({ ok: true, value: full });
  });

  it('refuses what is not an object, naming what it got', () => {
    expect(problem('approve')).toBe('A decision must be a JSON object, not "approve".');
    expect(problem([1])).toBe('A decision must be a JSON object, not an array.');
    expect(problem(7)).toBe('A decision must be a JSON object, not a number.');
  });

  it('names an unknown field and lists the allowed ones', () => {
    expect(problem({ approved: true })).toMatch(
      /^Unknown decision field "approved"; allowed: toolCallId,/,
    );
  });

  it('refuses empty or non-string ids, and a malformed decidedBy', () => {
    expect(problem({ toolCallId: '' })).toBe(
      'Decision field "toolCallId" must be a non-empty string, not "".',
    );
    expect(problem({ fingerprint: 3 })).toContain('"fingerprint"');
    expect(problem({ decidedBy: 'bob' })).toBe(
      'Decision field "decidedBy" must be { id: string, roles?: string[] }.',
    );
    expect(problem({ decidedBy: { id: 'bob', roles: 'ops' } })).toBe(
      'Decision field "decidedBy.roles" must be an array of strings.',
    );
  });

  it('takes the channels "link" and "slack" and refuses any other', () => {
    expect(problem({ channel: 'link' })).toBeUndefined();
    expect(problem({ channel: 'slack' })).toBeUndefined();
    expect(problem({ channel: 'email' })).toBe(
      'Decision field "channel" may only be "link" or "slack", not "email".',
    );
  });
});
