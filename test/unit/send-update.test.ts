import { describe, expect, it } from '@jest/globals';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { sendUpdate } from '../../src/temporal-client/send-update.js';
import { decisionUpdates } from '../../src/common/messages.js';

/** A client whose update calls fail with `failures` in turn, then answer `done`. */
function clientFailing(failures: Error[]): { client: Client; calls: () => number } {
  let calls = 0;
  const handle = {
    executeUpdate: async () => {
      const failure = failures[calls++];
      if (failure) throw failure;
      return 'done';
    },
  };
  const client = { workflow: { getHandle: () => handle } } as unknown as Client;
  return { client, calls: () => calls };
}

const notProcessed = () =>
  new WorkflowUpdateFailedError(
    'Workflow Update failed',
    // What the server answers (type UnprocessedUpdate); classified by type, not by its words.
    ApplicationFailure.create({
      type: 'UnprocessedUpdate',
      message: 'not processed',
      nonRetryable: true,
    }),
  );

describe('sending a decision update', () => {
  it('sends again an update the worker never processed, and returns the answer', async () => {
    const { client, calls } = clientFailing([notProcessed(), notProcessed()]);
    await expect(sendUpdate(client, 'run-1', decisionUpdates.approve, [{}])).resolves.toBe('done');
    expect(calls()).toBe(3);
  });

  it('gives up after three resends, with the server failure', async () => {
    const { client, calls } = clientFailing([1, 2, 3, 4, 5].map(notProcessed));
    await expect(sendUpdate(client, 'run-1', decisionUpdates.approve, [{}])).rejects.toBeInstanceOf(
      WorkflowUpdateFailedError,
    );
    expect(calls()).toBe(4);
  });

  it('never sends again an update the run refused', async () => {
    const refused = new WorkflowUpdateFailedError(
      'Workflow Update failed',
      ApplicationFailure.create({ type: 'TollgateError:TOOL_CALL_NOT_PENDING', message: 'no' }),
    );
    const { client, calls } = clientFailing([refused]);
    await expect(sendUpdate(client, 'run-1', decisionUpdates.approve, [{}])).rejects.toBe(refused);
    expect(calls()).toBe(1);
  });
});
