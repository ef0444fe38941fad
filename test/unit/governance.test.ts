import { describe, expect, it } from '@jest/globals';
import { checkGovernance, isApprover } from '../../src/workflows/governance.js';
import { waitingCall, type WaitTerms } from '../../src/workflows/waiting-call.js';

const INPUT_SCHEMA = JSON.stringify({
  type: 'object',
  properties: { amount: { type: 'number', maximum: 100 } },
  required: ['amount'],
});

function call(terms: WaitTerms) {
  const ref = { toolCallId: 'c1', toolName: 'refund', args: { amount: 5 }, fingerprint: 'fp' };
  return waitingCall(ref, 'approve', { terms }, 1);
}

describe('approval rules of one decision (pure, no server)', () => {
  it('needs decidedBy when the call has approvers, a quorum or a requester rule', () => {
    expect(checkGovernance(call({ approvers: ['bob'] }), 'approve', {})?.code).toBe(
      'APPROVER_REQUIRED',
    );
    expect(checkGovernance(call({ quorum: 2 }), 'decline', {})?.code).toBe('APPROVER_REQUIRED');
    expect(checkGovernance(call({ requester: 'eve' }), 'approve', {})?.code).toBe(
      'APPROVER_REQUIRED',
    );
    // Declining needs no identity for a requester rule alone.
    expect(checkGovernance(call({ requester: 'eve' }), 'decline', {})).toBeUndefined();
  });

  it('lets approvers by id or by role decide, and refuses others', () => {
    const restricted = call({ approvers: ['bob', 'role:finance'] });
    expect(checkGovernance(restricted, 'approve', { decidedBy: { id: 'bob' } })).toBeUndefined();
    expect(
      checkGovernance(restricted, 'approve', { decidedBy: { id: 'ann', roles: ['finance'] } }),
    ).toBeUndefined();
    expect(checkGovernance(restricted, 'decline', { decidedBy: { id: 'ann' } })?.code).toBe(
      'NOT_AN_APPROVER',
    );
    expect(isApprover(['role:ops'], { id: 'x', roles: ['dev'] })).toBe(false);
  });

  it('refuses self-approval by the requester', () => {
    const refusal = checkGovernance(call({ requester: 'eve' }), 'approve', {
      decidedBy: { id: 'eve' },
    });
    expect(refusal?.code).toBe('REQUESTER_CANNOT_APPROVE');
    expect(refusal?.message).toContain('eve');
  });

  it('counts each approver of a quorum once', () => {
    const quorum = call({ quorum: 2 });
    quorum.approvals = [{ id: 'bob', at: '2026-01-01T00:00:00Z' }];
    expect(checkGovernance(quorum, 'approve', { decidedBy: { id: 'bob' } })?.code).toBe(
      'DUPLICATE_APPROVER',
    );
    expect(checkGovernance(quorum, 'approve', { decidedBy: { id: 'ann' } })).toBeUndefined();
  });

  it('checks edited arguments against the input schema, and refuses edits under a quorum', () => {
    const editable = call({ inputSchema: INPUT_SCHEMA });
    expect(checkGovernance(editable, 'approve', { args: { amount: 50 } })).toBeUndefined();
    const tooMuch = checkGovernance(editable, 'approve', { args: { amount: 500 } });
    expect(tooMuch?.code).toBe('INVALID_DECISION');
    expect(tooMuch?.message).toContain('args.amount');
    expect(checkGovernance(call({}), 'approve', { args: { amount: 1 } })?.code).toBe(
      'INVALID_DECISION',
    );
    const quorum = call({ quorum: 2, inputSchema: INPUT_SCHEMA });
    expect(
      checkGovernance(quorum, 'approve', { decidedBy: { id: 'a' }, args: { amount: 1 } })?.message,
    ).toContain('quorum');
  });
});
