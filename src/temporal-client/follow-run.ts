import type { Client } from '@temporalio/client';
import { pendingToolCallsQuery } from '../common/messages.js';
import type { PendingToolCall } from '../common/run-types.js';
import { AgentStream, latestPending } from '../stream/agent-stream.js';
import type { AgentClientContext } from './agent-client-context.js';
import { callFailure } from './call-failure.js';
import type { LogReading } from './finish-points.js';
import type { LiveSubscription } from './live-subscription.js';
import { tailRun } from './run-tail.js';
import { followByUpdate, followsByUpdate, type Follower } from './follow-update.js';

/**
 * The stream of run `runId` from `offset` until its next `finish`, read as `reading` says. A run
 * that ends other than waiting lets go of its live policy. With a `follower`, a reader of the ends
 * only (`at-ends`) of a runtime with `follow: 'update'` gets them from the run with one update.
 */
export function followRun(
  context: AgentClientContext,
  client: Client,
  run: { runId: string; offset: number; live: LiveSubscription },
  reading: LogReading = 'each-change',
  follower?: Follower,
): AgentStream {
  const { runId, offset, live } = run;
  const { lifetime } = context;
  const tail = (at: number) => tailRun(client, runId, at, live, lifetime, reading);
  const byUpdate = follower && followsByUpdate(context, reading);
  const stream = new AgentStream(
    runId,
    offset,
    byUpdate ? followByUpdate(client, run, follower, lifetime, tail) : tail(offset),
    async () => latestPending(await queryPendingCalls(context, client, runId)),
  );
  stream.finishReason.then(
    (reason) => reason !== 'suspended' && context.releasePolicy(runId),
    () => undefined,
  );
  return stream;
}

/** The calls run `runId` waits on, read from the run itself. */
export async function queryPendingCalls(
  context: AgentClientContext,
  client: Client,
  runId: string,
): Promise<PendingToolCall[]> {
  try {
    return await client.workflow.getHandle(runId).query(pendingToolCallsQuery);
  } catch (error) {
    throw await callFailure(context, error, runId);
  }
}
