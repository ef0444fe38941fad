import { describe, expect, it } from '@jest/globals';
import { ApplicationFailure } from '@temporalio/common';
import { TollgateError, TOLLGATE_ERROR_CODES } from '../../src/common/errors.js';
import { tollgateFailure } from '../../src/common/failure.js';

describe('the one failure builder (pure, no server)', () => {
  it('builds a non-retryable ApplicationFailure typed tollgate.<code> by default', () => {
    const failure = tollgateFailure('APPROVAL_EXPIRED', 'The approval of c1 expired.');
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('tollgate.APPROVAL_EXPIRED');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe('The approval of c1 expired.');
  });

  it('keeps a retry delay and a cause for retryable failures', () => {
    const cause = new Error('HTTP 429');
    const failure = tollgateFailure('MODEL_UNAVAILABLE', 'retry later', {
      nonRetryable: false,
      nextRetryDelay: 1500,
      cause,
    });
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(1500);
    expect(failure.cause).toBe(cause);
  });

  it('round-trips every code, RUN_FAILED included, through the failure type', () => {
    expect(TOLLGATE_ERROR_CODES).toContain('RUN_FAILED');
    for (const code of TOLLGATE_ERROR_CODES) {
      expect(TollgateError.codeOfFailureType(tollgateFailure(code, 'x').type)).toBe(code);
    }
  });
});
