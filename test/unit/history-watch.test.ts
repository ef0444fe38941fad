import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { IDLE_READ_MS, watchHistory } from '../../src/temporal-client/history-watch.js';

/** A client whose history long-poll fails once `abortWith` aborts, as a cancelled call does. */
function cancelledPolls(abortWith: AbortController, onEvent: string[]): Client {
  return {
    options: { namespace: 'default' },
    connection: { withAbortSignal: <T>(_: AbortSignal, call: () => Promise<T>) => call() },
    workflowService: {
      getWorkflowExecutionHistory: () => {
        onEvent.push('poll');
        abortWith.abort();
        return Promise.reject(new Error('CANCELLED: the call was cancelled'));
      },
    },
  } as unknown as Client;
}

describe("the tail's history watch (pure, no server)", () => {
  it('ends as soon as the tail ends, not after the pause between failed polls', async () => {
    const tail = new AbortController();
    const calls: string[] = [];
    const started = performance.now();
    // The tail's end aborts the long poll in flight: the watch must not wait IDLE_READ_MS then.
    await expect(
      watchHistory(cancelledPolls(tail, calls), 'run-1', tail.signal, () => calls.push('event')),
    ).resolves.toBeUndefined();
    expect(performance.now() - started).toBeLessThan(IDLE_READ_MS / 2);
    expect(calls).toEqual(['poll']);
  });
});
