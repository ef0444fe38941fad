import { describe, expect, it } from '@jest/globals';
import { checkHandOff } from '../../src/workflows/governance.js';
import { waitingCall, type WaitTerms } from '../../src/workflows/waiting-call.js';

function call(terms: WaitTerms) {
  const ref = { toolCallId: 'c1', toolName: 'refund', args: { amount: 5 }, fingerprint: 'fp' };
  return waitingCall(ref, 'approve', { terms }, 1);
}

describe('who may hand off a waiting call (pure, no server; docs/hand-off.md)', () => {
  it('needs the identity of whoever hands off, even on a call anyone may decide', () => {
    expect(checkHandOff(call({}), undefined)?.code).toBe('APPROVER_REQUIRED');
    expect(checkHandOff(call({}), { id: 'bob' })).toBeUndefined();
  });

  it('lets only the approvers of the call hand it off, by id or by role', () => {
    const restricted = call({ approvers: ['bob', 'role:finance'] });
    expect(checkHandOff(restricted, { id: 'bob' })).toBeUndefined();
    expect(checkHandOff(restricted, { id: 'fay', roles: ['finance'] })).toBeUndefined();
    const refused = checkHandOff(restricted, { id: 'mallory', roles: ['ops'] });
    expect(refused?.code).toBe('NOT_AN_APPROVER');
    expect(refused?.message).toContain('mallory may not hand off tool call c1 (refund)');
  });

  it("holds a request's added approvers too", () => {
    const narrowed = call({ approvers: ['bob', 'carol'], alsoApprovers: ['carol'] });
    expect(checkHandOff(narrowed, { id: 'carol' })).toBeUndefined();
    expect(checkHandOff(narrowed, { id: 'bob' })?.code).toBe('NOT_AN_APPROVER');
  });

  it('refuses the requester of a four-eyes run, who would pick who approves their own call', () => {
    const fourEyes = call({ requester: 'eve' });
    expect(checkHandOff(fourEyes, { id: 'eve' })?.code).toBe('REQUESTER_CANNOT_APPROVE');
    expect(checkHandOff(fourEyes, { id: 'bob' })).toBeUndefined();
  });
});
