import { describe, expect, it } from '@jest/globals';
import type { Context } from '@temporalio/activity';
import { Checkpoints } from '../../src/activities/checkpoints.js';

/** An activity context with the given heartbeat details, as a remote attempt sees them. */
function contextWith(heartbeatDetails: unknown): Context {
  return { info: { heartbeatDetails, isLocal: false }, heartbeat: () => undefined } as never;
}

describe('a tool attempt after a worker without the agent refused one', () => {
  it('starts from the details that attempt carried over when it has none of its own', () => {
    const carried = { tollgateCheckpoint: { page: 3 }, tollgateExecuting: true };
    const checkpoints = new Checkpoints(contextWith(undefined), carried);
    expect(checkpoints.previous).toEqual({ page: 3 });
    expect(checkpoints.previousEndedUnseen).toBe(true);
  });

  it("prefers the activity's own heartbeat details over carried ones", () => {
    const checkpoints = new Checkpoints(contextWith({ tollgateCheckpoint: 'own' }), {
      tollgateCheckpoint: 'carried',
      tollgateExecuting: true,
    });
    expect(checkpoints.previous).toBe('own');
    expect(checkpoints.previousEndedUnseen).toBe(false);
  });
});
