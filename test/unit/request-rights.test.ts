import { describe, expect, it } from '@jest/globals';
import { requestRights } from '../../src/temporal-client/request-rights.js';
import type { RunOptions } from '../../src/temporal-client/run-options.js';

const startOnly = { scope: { actions: ['start' as const] }, identity: { id: 'bob' } };
const admin = { scope: { actions: ['admin' as const] }, identity: { id: 'root' } };
const owner = { scope: undefined };

describe('what a request may do to the gates, and who requested it (pure, no server)', () => {
  it('refuses every loosening, and an override, to a caller without admin, naming the field', () => {
    const loosenings: Array<[RunOptions, string]> = [
      [{ requireToolApproval: false }, 'requireToolApproval'],
      [{ approval: { onTimeout: 'approve' as const } }, 'approval.onTimeout'],
      [{ approval: { separateRequester: false } }, 'approval.separateRequester'],
      [{ approval: { approvers: ['bob'] }, approvalOverride: true }, 'approvalOverride'],
    ];
    for (const [opts, field] of loosenings) {
      expect(() => requestRights(opts, startOnly)).toThrow(
        expect.objectContaining({
          code: 'APPROVAL_LOOSENING_FORBIDDEN',
          message: expect.stringContaining(field),
        }),
      );
    }
  });

  it('lets tightening through for anyone, with the token as the requester', () => {
    expect(requestRights({ approval: { approvers: ['carol'], timeout: 1000 } }, startOnly)).toEqual(
      {
        requester: 'bob',
      },
    );
  });

  it('asks an admin or the owner to say approvalOverride, and records it with who asked', () => {
    expect(() => requestRights({ requireToolApproval: false }, owner)).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining('approvalOverride'),
      }),
    );
    expect(
      requestRights(
        { requireToolApproval: false, approval: { approvers: ['eve'] }, approvalOverride: true },
        admin,
      ),
    ).toEqual({
      requester: 'root',
      approvalOverride: { fields: ['requireToolApproval', 'approval.approvers'], by: 'root' },
    });
  });

  it('refuses a requester other than the token unless the caller is an admin; the SDK keeps requestContext', () => {
    const asDave = { requestContext: { requester: 'dave' } };
    expect(() => requestRights(asDave, startOnly)).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    );
    expect(requestRights(asDave, admin)).toEqual({ requester: 'dave' });
    expect(requestRights(asDave, owner)).toEqual({ requester: 'dave' });
    expect(requestRights({}, owner)).toEqual({});
  });
});
