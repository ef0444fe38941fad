/**
 * A deliberately incompatible `agentRun`, for proving that the replay test catches workflow
 * changes: it asks for a model step before describing the agent, so its first command differs from
 * every recorded history. Bundled by `test/replay.test.ts`, and by `test/move-run.test.ts` as the
 * code of a build a run is refused to move to; no run ever executes it against a server.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { TollgateActivities } from '../../src/activities/index.js';
import type { RunInput } from '../../src/common/run-types.js';

const { modelStep } = proxyActivities<TollgateActivities>({ startToCloseTimeout: '1 minute' });

export async function agentRun(input: RunInput): Promise<void> {
  await modelStep({
    runId: workflowInfo().workflowId,
    agentId: input.agentId,
    step: 1,
    chunkOffset: 0,
    conversation: { from: 0, messages: input.messages },
  });
}
