import {
  WithStartWorkflowOperation,
  WorkflowUpdateStage,
  type Client,
  type WorkflowStartOptions,
  type WorkflowUpdateHandle,
} from '@temporalio/client';
import type { ChunkSlice } from '../common/chunks.js';
import { followUpdate } from '../common/messages.js';
import { AGENT_RUN_WORKFLOW } from '../common/wire.js';
import type { StreamItem } from '../stream/stream-items.js';
import type { AgentClientContext } from './agent-client-context.js';
import type { LogReading } from './finish-points.js';
import type { LiveSubscription } from './live-subscription.js';

/**
 * How long a follower waits for the run to take its update before it reads the run's history
 * instead: no worker polls, or the run's worker is of a release before the update and refuses it.
 */
export const FOLLOW_ACCEPT_MS = 5_000;

/**
 * How a follower gets the run's answer: `ask` sends the follow update now (after a decision);
 * a promise is the answer of the follower the run was started with (`startFollowed`).
 */
export type Follower = 'ask' | Promise<ChunkSlice | undefined>;

/** A reader of the run's ends only (`generate()` and the like) of a runtime with `follow: 'update'`. */
export function followsByUpdate(context: AgentClientContext, reading: LogReading): boolean {
  return reading === 'at-ends' && context.follow === 'update';
}

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
  follower: Follower,
  lifetime: AbortSignal,
  readOn: (offset: number) => AsyncGenerator<StreamItem>,
): AsyncGenerator<StreamItem> {
  let next = run.offset;
  let readingOn = false;
  try {
    const answer = await (follower === 'ask'
      ? answerOf(client, lifetime, startFollower(client, run.runId, next, lifetime))
      : follower);
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

/** A follower at `offset` of a running run, once the run took it (within `FOLLOW_ACCEPT_MS`). */
function startFollower(
  client: Client,
  runId: string,
  offset: number,
  lifetime: AbortSignal,
): Promise<WorkflowUpdateHandle<ChunkSlice>> {
  return client.connection.withAbortSignal(accepting(lifetime), () =>
    client.workflow.getHandle(runId).startUpdate(followUpdate, {
      args: [{ offset }],
      waitForStage: WorkflowUpdateStage.ACCEPTED,
    }),
  );
}

function accepting(lifetime: AbortSignal): AbortSignal {
  return AbortSignal.any([lifetime, AbortSignal.timeout(FOLLOW_ACCEPT_MS)]);
}

/** The run's answer to a follower, or undefined where it gave none. */
async function answerOf(
  client: Client,
  lifetime: AbortSignal,
  started: Promise<WorkflowUpdateHandle<ChunkSlice>>,
): Promise<ChunkSlice | undefined> {
  try {
    const update = await started;
    return await client.connection.withAbortSignal(lifetime, () => update.result());
  } catch {
    // The history says everything the answer would have: the tail reads it, and names any failure.
    return undefined;
  }
}

/**
 * Starts a run with a follower at offset 0 (update-with-start: the run takes it in its first
 * workflow task, which costs no task of its own) and resolves once the start is known, with the
 * follower's answer to come. When the run does not take the follower in time (no worker polls),
 * the start's outcome is not told either; the run is then described, and if it exists it is
 * followed by history from the start, which reports `WORKER_UNAVAILABLE` as before.
 */
export async function startFollowed(
  client: Client,
  options: WorkflowStartOptions &
    Pick<WithStartWorkflowOperation<never>['options'], 'workflowIdConflictPolicy'>,
  lifetime: AbortSignal,
): Promise<{ answer: Promise<ChunkSlice | undefined> }> {
  const start = new WithStartWorkflowOperation(AGENT_RUN_WORKFLOW, options);
  const signal = accepting(lifetime);
  const follower = client.connection.withAbortSignal(signal, () =>
    client.workflow.startUpdateWithStart(followUpdate, {
      args: [{ offset: 0 }],
      waitForStage: WorkflowUpdateStage.ACCEPTED,
      startWorkflowOperation: start,
    }),
  );
  const answer = answerOf(client, lifetime, follower);
  try {
    await start.workflowHandle();
  } catch (error) {
    if (!signal.aborted || lifetime.aborted) throw error;
    const described = client.workflow.getHandle(options.workflowId).describe();
    if (!(await described.then(Boolean, () => false))) throw error;
  }
  // Wrapped: an async function returning the promise would wait for the answer.
  return { answer };
}
