import { describe, expect, it } from '@jest/globals';
import {
  changeProblem,
  EMPTY_LIVE_POLICIES,
  rulesOfAgent,
  withChange,
} from '../../src/common/live-policy.js';
import { judgeDecision, type JudgedRun } from '../../src/workflows/decision-judge.js';
import { waitingCall, type WaitingCall, type WaitTerms } from '../../src/workflows/waiting-call.js';

function approval(id: string, terms: WaitTerms = {}): WaitingCall {
  const call = { toolCallId: id, toolName: 'deploy', args: {}, fingerprint: `fp-${id}` };
  return waitingCall(call, 'approve', { terms }, 1);
}

function run(call: WaitingCall): JudgedRun {
  const waiting = new Map([[call.toolCallId, call]]);
  return {
    runId: 'run-1',
    agentId: 'ops',
    closed: false,
    waiting,
    decided: new Set<string>(),
    expired: new Set<string>(),
    latestWaiting: () => call,
  };
}

const grant = { grantId: 'grant-1', expiresAt: '2030-01-01T00:00:00.000Z' };

describe('a decision that carries a grant (docs/grant-release.md; pure, no server)', () => {
  it('approves a call as asked, carrying the grant', () => {
    const verdict = judgeDecision(run(approval('a')), 'approve', {
      toolCallId: 'a',
      decidedBy: { id: 'alice' },
      grant,
    });
    expect(verdict).toMatchObject({ ok: true, decision: { kind: 'approve', grant } });
  });

  it('refuses a grant for a quorum, with edits or on a decline, as INVALID_GRANT', () => {
    const quorum = judgeDecision(run(approval('q', { quorum: 2 })), 'approve', {
      toolCallId: 'q',
      decidedBy: { id: 'alice' },
      grant,
    });
    expect(quorum).toMatchObject({ ok: false, code: 'INVALID_GRANT' });
    expect(!quorum.ok && quorum.message).toContain('needs 2 approvers');
    const edited = judgeDecision(run(approval('e')), 'approve', { args: { x: 1 }, grant });
    expect(edited).toMatchObject({ ok: false, code: 'INVALID_GRANT' });
    const declined = judgeDecision(run(approval('d')), 'decline', { grant });
    expect(declined).toMatchObject({ ok: false, code: 'INVALID_GRANT' });
  });

  it('still judges the granter like any approver', () => {
    const verdict = judgeDecision(run(approval('p', { approvers: ['cfo'] })), 'approve', {
      decidedBy: { id: 'alice' },
      grant,
    });
    expect(verdict).toMatchObject({ ok: false, code: 'NOT_AN_APPROVER' });
  });

  it('refuses a malformed grant field as INVALID_DECISION', () => {
    const verdict = judgeDecision(run(approval('m')), 'approve', { grant: { grantId: 7 } });
    expect(verdict).toMatchObject({ ok: false, code: 'INVALID_DECISION' });
  });
});

describe('live approval rules (docs/live-policies.md; pure, no server)', () => {
  const change = { agentId: 'ops', toolName: 'deploy', requireApproval: false };

  it('keeps one rule per agent and tool, the latest, and drops it on null', () => {
    const relaxed = withChange(EMPTY_LIVE_POLICIES, change, 't1');
    const tightened = withChange(relaxed, { ...change, requireApproval: true }, 't2');
    expect(tightened.rules).toEqual([
      { agentId: 'ops', toolName: 'deploy', requireApproval: true, changedAt: 't2' },
    ]);
    const other = withChange(tightened, { ...change, agentId: 'billing' }, 't3');
    expect(rulesOfAgent(other, 'ops')).toEqual({ deploy: true });
    expect(rulesOfAgent(other, 'billing')).toEqual({ deploy: false });
    expect(withChange(other, { ...change, requireApproval: null }, 't4').rules).toHaveLength(1);
  });

  it('names the bad field of a change', () => {
    expect(changeProblem(change)).toBeUndefined();
    expect(changeProblem({ ...change, toolName: '' })).toContain('toolName');
    expect(changeProblem({ ...change, requireApproval: 'no' })).toContain('requireApproval');
    expect(changeProblem({ ...change, reason: 'x'.repeat(501) })).toContain('reason');
    expect(changeProblem(null)).toContain('object');
  });
});
