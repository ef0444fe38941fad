import { describe, expect, it } from '@jest/globals';
import type { PolicyFacts } from '../../src/common/gate-policy.js';
import type { RequestPolicy } from '../../src/common/run-types.js';
import {
  nextStepChunkOffset,
  positionKey,
  stepStretches,
  type StretchRules,
} from '../../src/common/stretches.js';

const TOOLS: StretchRules['tools'] = {
  lookup: { approval: 'never', local: true },
  search: { approval: 'never', local: true },
  remote: { approval: 'never' },
  deleteRecord: { approval: 'always' },
  maybe: { approval: 'predicate' },
  'agent-db': { approval: 'never', delegate: { agentId: 'db' } },
};

function rules(
  policy: RequestPolicy = { kind: 'agent-default' },
  defaultPolicy: PolicyFacts['defaultPolicy'] = 'never',
  onlyTightens = true,
): StretchRules {
  return { tools: TOOLS, policy, defaultPolicy, onlyTightens };
}

const call = (toolName: string, invalidReason?: string) => ({
  toolName,
  ...(invalidReason !== undefined ? { invalidReason } : {}),
});

describe('what a stretch may run (pure, no server)', () => {
  it('stretches a step whose calls are all valid calls of ungated local tools', () => {
    expect(stepStretches(rules(), [call('lookup'), call('search'), call('lookup')])).toBe(true);
  });

  it('does not stretch a step without calls, or with any call it cannot run ungated and locally', () => {
    expect(stepStretches(rules(), [])).toBe(false);
    for (const other of ['remote', 'deleteRecord', 'maybe', 'agent-db', 'unknown'])
      expect([other, stepStretches(rules(), [call('lookup'), call(other)])]).toEqual([
        other,
        false,
      ]);
    expect(stepStretches(rules(), [call('lookup', 'bad arguments')])).toBe(false);
  });

  it('does not stretch when the run policy would gate or need evaluating', () => {
    expect(stepStretches(rules(undefined, 'always'), [call('lookup')])).toBe(false);
    expect(stepStretches(rules(undefined, 'function'), [call('lookup')])).toBe(false);
    expect(stepStretches(rules({ kind: 'always' }), [call('lookup')])).toBe(false);
    expect(stepStretches(rules({ kind: 'function', taskQueue: 'q' }), [call('lookup')])).toBe(
      false,
    );
    expect(stepStretches(rules({ kind: 'named', name: 'p' }), [call('lookup')])).toBe(false);
    // A request that may only tighten cannot take the agent's gate away...
    expect(stepStretches(rules({ kind: 'never' }, 'always'), [call('lookup')])).toBe(false);
    // ...an override (a caller allowed to loosen) can.
    expect(stepStretches(rules({ kind: 'never' }, 'always', false), [call('lookup')])).toBe(true);
    expect(stepStretches(rules({ kind: 'never' }), [call('lookup')])).toBe(true);
  });

  it("predicts the next step's chunk offset from what the workflow logs per step", () => {
    // step-start at 0; 2 text deltas (1, 2), 3 tool-calls (3-5), step-finish (6),
    // 3 tool-results (7-9), step-start (10): the next step's text starts at 11.
    expect(nextStepChunkOffset(1, 2, 3)).toBe(11);
    expect(nextStepChunkOffset(5, 0, 1)).toBe(9);
  });

  it('keys a call by its position', () => {
    expect(positionKey('run-1', { step: 3, index: 1 })).toBe('run-1:step-3:call-1');
  });
});
