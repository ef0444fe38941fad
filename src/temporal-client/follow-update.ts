import { WorkflowUpdateStage, type Client } from '@temporalio/client';
import type { ChunkSlice } from '../common/chunks.js';
import { followUpdate } from '../common/messages.js';
import type { StreamItem } from '../stream/stream-items.js';
import type { LiveSubscription } from './live-subscription.js';

/**
 * How long a follower waits for the run to take its update before it reads the run's history
 * instead: no worker polls, or the run's worker is of a release before the update and refuses it.
 */
export const FOLLOW_ACCEPT_MS = 5_000;

/**
 * The run's log from `offset` up to its next `finish`, asked of the run itself with one update
 * (`followUpdate`, docs/streams.md "Following by update") instead of a history long-poll per
 * batch of new events. Whatever the answer lacks (none came: refused, not taken in time, the run
 * ended without answering; or it stopped before a `finish`: the answer's size bound, a
 * continue-as-new) is read by `readOn` from the offset reached, as every follower reads; `live`
 * is closed by it then, and here otherwise.
 */
export async function* followByUpdate(
  client: Client,
  run: { runId: string; offset: number; live: LiveSubscription },
  lifetime: AbortSignal,
  readOn: (offset: number) => AsyncGenerator<StreamItem>,
): AsyncGenerator<StreamItem> {
  let next = run.offset;
  let readingOn = false;
  try {
    const answer = await askRun(client, run.runId, next, lifetime);
    if (answer?.offset === next) {
      for (const chunk of answer.chunks) {
        yield { chunk, offset: next++ };
        if (chunk.type === 'finish') return;
      }
    }
    readingOn = true;
    yield* readOn(next);
  } finally {
    if (!readingOn) run.live.close();
  }
}

/** The run's answer to a follower at `offset`, or undefined where it gave none. */
async function askRun(
  client: Client,
  runId: string,
  offset: number,
  lifetime: AbortSignal,
): Promise<ChunkSlice | undefined> {
  const handle = client.workflow.getHandle(runId);
  const accepting = AbortSignal.any([lifetime, AbortSignal.timeout(FOLLOW_ACCEPT_MS)]);
  try {
    const update = await client.connection.withAbortSignal(accepting, () =>
      handle.startUpdate(followUpdate, {
        args: [{ offset }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      }),
    );
    return await client.connection.withAbortSignal(lifetime, () => update.result());
  } catch {
    // The history says everything the answer would have: the tail reads it, and names any failure.
    return undefined;
  }
}
