import { describe, expect, it } from '@jest/globals';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ConnectDeadlineError } from '../../src/temporal-client/connection.js';
import {
  isTemporalUnreachable,
  isTransientReadFailure,
  toTollgateError,
} from '../../src/temporal-client/errors.js';
import { isTollgateError } from '../../src/common/errors.js';

/** A gRPC status error as @grpc/grpc-js raises it, with words no check may rely on. */
function grpcError(code: number): Error {
  return Object.assign(new Error('words that change between server releases'), {
    code,
    details: 'words that change between server releases',
    metadata: {},
  });
}

/** A client whose only call, describe, answers `status` or fails when it is undefined. */
function describing(status: string | undefined): { client: Client; described: () => number } {
  let described = 0;
  const handle = {
    describe: async () => {
      described++;
      if (status === undefined) throw new WorkflowNotFoundError('gone', 'run-1', undefined);
      return { status: { name: status } };
    },
  };
  return {
    client: { workflow: { getHandle: () => handle } } as unknown as Client,
    described: () => described,
  };
}

describe('client-side error classification (no server)', () => {
  it('tells a closed run from an unknown one by describing it, not by the answer text', async () => {
    const notFound = () =>
      new WorkflowNotFoundError('workflow execution already completed', 'run-1', undefined);
    const closed = describing('COMPLETED');
    expect(
      isTollgateError(await toTollgateError(notFound(), 'run-1', closed.client), 'RUN_FINISHED'),
    ).toBe(true);
    expect(closed.described()).toBe(1);
    const missing = describing(undefined);
    expect(
      isTollgateError(await toTollgateError(notFound(), 'run-1', missing.client), 'RUN_NOT_FOUND'),
    ).toBe(true);
    const open = describing('RUNNING');
    expect(
      isTollgateError(await toTollgateError(notFound(), 'run-1', open.client), 'RUN_NOT_FOUND'),
    ).toBe(true);
    // Without a client nothing is described: NOT_FOUND is RUN_NOT_FOUND.
    expect(isTollgateError(await toTollgateError(grpcError(5), 'run-1'), 'RUN_NOT_FOUND')).toBe(
      true,
    );
  });

  it('maps a tollgate.<code> failure type to that code and UNAVAILABLE to TEMPORAL_UNAVAILABLE', async () => {
    const { ApplicationFailure } = await import('@temporalio/common');
    const refused = ApplicationFailure.create({
      type: 'tollgate.FINGERPRINT_MISMATCH',
      message: 'm',
    });
    expect(isTollgateError(await toTollgateError(refused, 'r'), 'FINGERPRINT_MISMATCH')).toBe(true);
    expect(isTollgateError(await toTollgateError(grpcError(14), 'r'), 'TEMPORAL_UNAVAILABLE')).toBe(
      true,
    );
    const other = new Error('a crash');
    expect(await toTollgateError(other, 'r')).toBe(other);
  });

  it('knows Temporal was unreachable by the error type or gRPC status', () => {
    expect(isTemporalUnreachable(new ConnectDeadlineError(new Error('x')))).toBe(true);
    expect(isTemporalUnreachable(grpcError(14))).toBe(true);
    expect(isTemporalUnreachable(new Error('Failed to connect before the deadline'))).toBe(false);
    expect(isTemporalUnreachable(grpcError(3))).toBe(false);
  });

  it('retries reads on restart-like statuses, not on refusals', () => {
    for (const code of [4, 8, 10, 14]) expect(isTransientReadFailure(grpcError(code))).toBe(true);
    for (const code of [3, 5, 7, 9]) expect(isTransientReadFailure(grpcError(code))).toBe(false);
  });

  it('waits out a query refused while the run’s last workflow task failed or timed out', () => {
    const failedTask = Object.assign(
      new Error(
        '9 FAILED_PRECONDITION: Unable to query workflow due to Workflow Task in failed state.',
      ),
      {
        code: 9,
        details: 'Unable to query workflow due to Workflow Task in failed state.',
        metadata: {},
      },
    );
    expect(isTransientReadFailure(failedTask)).toBe(true);
    expect(
      isTransientReadFailure(new Error('Failed to query Workflow', { cause: failedTask })),
    ).toBe(true);
  });
});
