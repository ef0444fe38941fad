/**
 * The replay gate's follow scenarios (docs/streams.md "Following by update"), recorded into
 * generation `10-local-describe` with no patch (the handler changes no command of a run that
 * takes no follower): a parked run takes a follower, which its last `finish` answers once the
 * call is approved; `history-long` parks on r1 with a follower waiting, and the approval lets
 * the run count on until it continues as new, which answers the follower without a `finish`; a
 * runtime with `follow: 'update'` starts a run with a follower (update-with-start), which the
 * run's park answers, and releases it with another, which its last `finish` answers.
 */
import { WorkflowUpdateStage, type Client, type WorkflowUpdateHandle } from '@temporalio/client';
import type { Tollgate } from '../../src/index.js';
import type { ChunkSlice } from '../../src/common/chunks.js';
import { chunksQuery, followUpdate } from '../../src/common/messages.js';
import { expectEqual, resultOf, startSuspended, type Scenario } from './history-scenario-checks.js';
import { ranTimes } from './history-agents.js';
import { chunksOf } from './harness.js';

/** A follower of run `runId` from the end of its log, once the run has taken it. */
async function followFromEnd(
  client: Client,
  runId: string,
): Promise<{ offset: number; follower: WorkflowUpdateHandle<ChunkSlice> }> {
  const handle = client.workflow.getHandle(runId);
  const { total: offset } = await handle.query(chunksQuery, { offset: 0, limit: 1 });
  const follower = await handle.startUpdate(followUpdate, {
    args: [{ offset }],
    waitForStage: WorkflowUpdateStage.ACCEPTED,
  });
  return { offset, follower };
}

export const FOLLOW_SCENARIOS: Scenario[] = [
  {
    fixtures: ['followed-approved'],
    play: async (tollgate) => {
      const name = 'followed-approved';
      const agent = tollgate.getAgent('history-agent');
      await startSuspended(agent, 'Delete record r1', name);
      const { offset, follower } = await followFromEnd(await tollgate.client(), name);
      await agent.decideToolCall('approve', { runId: name, toolCallId: 'call_1' });
      const answer = await follower.result();
      expectEqual(name, 'the answer from', answer.offset, offset);
      expectEqual(name, 'the answer ends', answer.chunks.at(-1)?.type, 'finish');
      await resultOf(tollgate, name);
      expectEqual(name, 'executions of r1', ranTimes('delete-record', 'r1'), 1);
      return [{ name, workflowId: name }];
    },
  },
  {
    fixtures: ['followed-continued-as-new'],
    play: async (tollgate) => {
      const name = 'followed-continued-as-new';
      const agent = tollgate.getAgent('history-long');
      await startSuspended(agent, 'Delete r1 and r2', name);
      const client = await tollgate.client();
      const firstRun = (await client.workflow.getHandle(name).describe()).runId;
      const { offset, follower } = await followFromEnd(client, name);
      await agent.decideToolCall('approve', { runId: name, toolCallId: 'call_r1' });
      const letGo = await follower.result();
      expectEqual(name, 'the answer from', letGo.offset, offset);
      const types = letGo.chunks.map((chunk) => chunk.type);
      if (types.includes('finish')) throw new Error(`${name}: the answer held a finish: ${types}.`);
      // The next execution goes on to r2 and waits.
      const parked = await agent.observe({ runId: name, offset: offset + types.length });
      await chunksOf(parked);
      expectEqual(
        name,
        'the run after the continue-as-new',
        await parked.finishReason,
        'suspended',
      );
      await agent.decideToolCall('approve', { runId: name, toolCallId: 'call_r2' });
      expectEqual(name, 'the answer', (await resultOf(tollgate, name)).text, 'Done.');
      expectEqual(
        name,
        'executions of r1 and r2',
        [ranTimes('delete-record', 'r1'), ranTimes('delete-record', 'r2')],
        [1, 1],
      );
      return [{ name, workflowId: name, runId: firstRun }];
    },
  },
];

/** `following()`: a runtime on the recorder's queue with `follow: 'update'` and no worker. */
export function followedFromStartScenario(following: () => Tollgate): Scenario {
  return {
    fixtures: ['followed-from-start'],
    play: async (tollgate) => {
      const name = 'followed-from-start';
      const agent = following().getAgent('history-agent');
      const parked = await agent.generate('Delete record r1', { runId: name });
      expectEqual(name, 'the park', parked.finishReason, 'suspended');
      const released = await agent.approveToolCallGenerate({ runId: name, toolCallId: 'call_1' });
      expectEqual(name, 'the release', released.finishReason, 'stop');
      await resultOf(tollgate, name);
      expectEqual(name, 'executions of r1', ranTimes('delete-record', 'r1'), 1);
      const history = await (await tollgate.client()).workflow.getHandle(name).fetchHistory();
      const multi = (history.events ?? []).filter(
        (event) => event.workflowExecutionUpdateAcceptedEventAttributes,
      );
      // The start's follower, the approval and the release's follower.
      expectEqual(name, 'accepted updates', multi.length, 3);
      return [{ name, workflowId: name }];
    },
  };
}
