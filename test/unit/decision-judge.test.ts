import { describe, expect, it } from '@jest/globals';
import { ApplicationFailure } from '@temporalio/common';
import { TollgateError } from '../../src/common/errors.js';
import { judgeDecision, refuse, type JudgedRun } from '../../src/workflows/decision-judge.js';
import { waitingCall, type WaitingCall, type WaitTerms } from '../../src/workflows/waiting-call.js';

const RESUME_SCHEMA = JSON.stringify({
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
});

function approval(id: string, sequence: number, terms: WaitTerms = {}): WaitingCall {
  const call = {
    toolCallId: id,
    toolName: 'deploy',
    args: { env: 'prod' },
    fingerprint: `fp-${id}`,
  };
  return waitingCall(call, 'approve', { terms }, sequence);
}

function suspension(id: string, sequence: number): WaitingCall {
  const call = { toolCallId: id, toolName: 'askUser', args: {}, fingerprint: `fp-${id}` };
  return waitingCall(call, 'resume', { resumeSchema: RESUME_SCHEMA }, sequence);
}

/** A run as the judge sees it: a plain object, no workflow, no server. */
function run(calls: WaitingCall[], extra: Partial<JudgedRun> = {}): JudgedRun {
  const waiting = new Map(calls.map((call) => [call.toolCallId, call]));
  return {
    runId: 'run-1',
    agentId: 'ops',
    closed: false,
    waiting,
    decided: new Set<string>(),
    expired: new Set<string>(),
    latestWaiting: (kind) =>
      [...waiting.values()]
        .filter((call) => kind === undefined || call.kind === kind)
        .sort((a, b) => b.sequence - a.sequence)[0],
    ...extra,
  };
}

function refusalCode(verdict: ReturnType<typeof judgeDecision>): string | undefined {
  return verdict.ok ? undefined : verdict.code;
}

describe('the decision judge (pure, no server)', () => {
  it('accepts an approval of the named call and carries who decided and why', () => {
    const verdict = judgeDecision(run([approval('a', 1)]), 'approve', {
      toolCallId: 'a',
      fingerprint: 'fp-a',
      reason: 'looks fine',
      decidedBy: { id: 'alice' },
    });
    expect(verdict).toEqual({
      ok: true,
      call: expect.objectContaining({ toolCallId: 'a' }),
      decision: { kind: 'approve', reason: 'looks fine', decidedBy: { id: 'alice' } },
    });
  });

  it('without a toolCallId picks the most recently requested call of the right kind', () => {
    const verdict = judgeDecision(
      run([approval('a', 1), approval('b', 2), suspension('s', 3)]),
      'decline',
      {},
    );
    expect(verdict.ok && verdict.call.toolCallId).toBe('b');
  });

  it('refuses a malformed decision as INVALID_DECISION naming the field', () => {
    const verdict = judgeDecision(run([approval('a', 1)]), 'approve', { toolCallId: 42 });
    expect(refusalCode(verdict)).toBe('INVALID_DECISION');
    expect(!verdict.ok && verdict.message).toContain('toolCallId');
  });

  it('refuses a decision whose deadline has passed', () => {
    const verdict = judgeDecision(run([approval('a', 1)]), 'approve', {
      toolCallId: 'a',
      deadline: '2000-01-01T00:00:00Z',
    });
    expect(refusalCode(verdict)).toBe('DECISION_DEADLINE_PASSED');
  });

  it('answers RUN_NOT_FOUND for another agent, naming only what the caller sent', () => {
    const verdict = judgeDecision(run([approval('a', 1)]), 'approve', { agentId: 'billing' });
    expect(refusalCode(verdict)).toBe('RUN_NOT_FOUND');
    expect(!verdict.ok && verdict.message).not.toContain('ops');
  });

  it('refuses every decision once the run has closed', () => {
    const verdict = judgeDecision(run([approval('a', 1)], { closed: true }), 'approve', {});
    expect(refusalCode(verdict)).toBe('RUN_FINISHED');
  });

  it('tells a resume from an approval: WRONG_DECISION_KIND', () => {
    expect(
      refusalCode(judgeDecision(run([suspension('s', 1)]), 'approve', { toolCallId: 's' })),
    ).toBe('WRONG_DECISION_KIND');
    expect(refusalCode(judgeDecision(run([suspension('s', 1)]), 'approve', {}))).toBe(
      'WRONG_DECISION_KIND',
    );
  });

  it('answers NO_PENDING_TOOL_CALL when nothing waits', () => {
    expect(refusalCode(judgeDecision(run([]), 'decline', {}))).toBe('NO_PENDING_TOOL_CALL');
  });

  it('names why a call no longer waits: expired, already decided, or never waiting', () => {
    const expired = run([], { expired: new Set(['x']) });
    const decided = run([], { decided: new Set(['d']) });
    expect(refusalCode(judgeDecision(expired, 'approve', { toolCallId: 'x' }))).toBe(
      'APPROVAL_EXPIRED',
    );
    expect(refusalCode(judgeDecision(decided, 'approve', { toolCallId: 'd' }))).toBe(
      'TOOL_CALL_ALREADY_DECIDED',
    );
    expect(refusalCode(judgeDecision(run([]), 'approve', { toolCallId: 'n' }))).toBe(
      'TOOL_CALL_NOT_PENDING',
    );
  });

  it('refuses a fingerprint that differs from the reviewed arguments', () => {
    const verdict = judgeDecision(run([approval('a', 1)]), 'approve', {
      toolCallId: 'a',
      fingerprint: 'other',
    });
    expect(refusalCode(verdict)).toBe('FINGERPRINT_MISMATCH');
  });

  it('applies the approval rules: an approver list refuses anyone else', () => {
    const verdict = judgeDecision(run([approval('a', 1, { approvers: ['bob'] })]), 'approve', {
      toolCallId: 'a',
      decidedBy: { id: 'mallory' },
    });
    expect(refusalCode(verdict)).toBe('NOT_AN_APPROVER');
  });

  it('checks resume data against the tool schema, and keeps the data on success', () => {
    const bad = judgeDecision(run([suspension('s', 1)]), 'resume', { resumeData: { answer: 3 } });
    expect(refusalCode(bad)).toBe('INVALID_RESUME_DATA');
    const good = judgeDecision(run([suspension('s', 1)]), 'resume', {
      resumeData: { answer: 'yes' },
    });
    expect(good.ok && good.decision).toEqual({ kind: 'resume', resumeData: { answer: 'yes' } });
  });

  it('keeps edited arguments on an approval only', () => {
    const schema = JSON.stringify({ type: 'object', properties: { env: { type: 'string' } } });
    const calls = [approval('a', 1, { inputSchema: schema })];
    const approved = judgeDecision(run(calls), 'approve', { args: { env: 'staging' } });
    expect(approved.ok && approved.decision.args).toEqual({ env: 'staging' });
    const declined = judgeDecision(run(calls), 'decline', { args: { env: 'staging' } });
    expect(declined.ok && declined.decision.args).toBeUndefined();
  });

  it('refuse() turns a refusal into a non-retryable failure that clients map back to its code', () => {
    const verdict = judgeDecision(run([]), 'approve', {});
    if (verdict.ok) throw new Error('expected a refusal');
    const failure = refuse(verdict);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe(verdict.message);
    expect(TollgateError.codeOfFailureType(failure.type)).toBe('NO_PENDING_TOOL_CALL');
  });
});
