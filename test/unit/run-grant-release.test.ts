/**
 * Which waiting calls a run grant approves when it is given (docs/grants.md "For this run"), and
 * which run grants a continue-as-new carries: pure, no server.
 */
import { describe, expect, it } from '@jest/globals';
import { MAX_CARRIED_RUN_GRANTS } from '../../src/common/continued-run.js';
import { carriedRunGrants, coveredWaiting, type RunGrant } from '../../src/workflows/run-grants.js';
import {
  waitingCall,
  type WaitDetails,
  type WaitingCall,
} from '../../src/workflows/waiting-call.js';

function waiting(id: string, details: WaitDetails = {}, toolName = 'delete-record'): WaitingCall {
  const call = { toolCallId: id, toolName, args: { id }, fingerprint: `fp-${id}` };
  return waitingCall(call, 'approve', details, 1);
}

const grant: RunGrant = {
  grantId: 'run:call-1',
  toolName: 'delete-record',
  definition: 'def-1',
  grantedBy: { id: 'alice', roles: ['ops'] },
  at: '2026-12-06T10:00:00.000Z',
};
const ids = (calls: WaitingCall[]) => calls.map((call) => call.toolCallId);

describe('coveredWaiting', () => {
  it('approves waiting calls of the tool for the definition the approver saw', () => {
    const calls = [
      waiting('same', { definition: 'def-1' }),
      waiting('other-tool', { definition: 'def-1' }, 'archive-record'),
      waiting('changed-definition', { definition: 'def-2' }),
    ];
    expect(ids(coveredWaiting(calls, grant))).toEqual(['same']);
  });

  it('leaves a call that needs a quorum waiting', () => {
    const calls = [waiting('quorum', { definition: 'def-1', terms: { quorum: 2 } })];
    expect(coveredWaiting(calls, grant)).toEqual([]);
  });

  it('leaves calls the granter could not approve: other approvers, or the granter its requester', () => {
    const calls = [
      waiting('bob-only', { definition: 'def-1', terms: { approvers: ['bob'] } }),
      waiting('ops', { definition: 'def-1', terms: { approvers: ['role:ops'] } }),
      waiting('own', { definition: 'def-1', terms: { requester: 'alice' } }),
    ];
    expect(ids(coveredWaiting(calls, grant))).toEqual(['ops']);
  });

  it("leaves a sub-agent's call, a budget approval and a suspension waiting", () => {
    const routed = { ...waiting('routed', { definition: 'def-1' }) };
    routed.route = { child: 'run/call_sub', innerId: 'inner-1' };
    const budget = waiting('budget', {
      definition: 'def-1',
      budget: { metric: 'tokens', used: 12, limit: 10, raiseBy: 10 },
    });
    const suspended = { ...waiting('suspended', { definition: 'def-1' }), kind: 'resume' as const };
    expect(coveredWaiting([routed, budget, suspended], grant)).toEqual([]);
  });
});

describe('carriedRunGrants', () => {
  it('keeps the newest grant of each tool, definition and granter, in order', () => {
    const older = { ...grant, grantId: 'run:a' };
    const other = { ...grant, grantId: 'run:b', toolName: 'archive-record' };
    const newer = { ...grant, grantId: 'run:c' };
    expect(carriedRunGrants([older, other, newer]).map((g) => g.grantId)).toEqual([
      'run:b',
      'run:c',
    ]);
  });

  it(`carries at most ${MAX_CARRIED_RUN_GRANTS}, the newest`, () => {
    const many = Array.from({ length: MAX_CARRIED_RUN_GRANTS + 5 }, (_, i) => ({
      ...grant,
      grantId: `run:${i}`,
      toolName: `tool-${i}`,
    }));
    const carried = carriedRunGrants(many);
    expect(carried).toHaveLength(MAX_CARRIED_RUN_GRANTS);
    expect(carried[0]!.grantId).toBe('run:5');
    expect(carried.at(-1)!.grantId).toBe(`run:${MAX_CARRIED_RUN_GRANTS + 4}`);
  });
});
