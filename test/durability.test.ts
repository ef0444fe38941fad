import { afterAll, describe, expect, it } from '@jest/globals';
import { Tollgate } from '../src/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import { chunksOf, hostAgents, recordingTool, testAgent, uniqueQueue } from './support/harness.js';

const deleteThenStop: TurnPicker = (prompt) =>
  prompt.at(-1)?.role === 'tool'
    ? { text: 'deleted' }
    : { text: 'On it.', toolCalls: [{ toolName: 'delete-record', args: { id: 'keep-me' } }] };

describe('a run parked while its worker goes away', () => {
  const queue = uniqueQueue('durability');
  const opened: Tollgate[] = [];
  afterAll(async () => {
    for (const tollgate of opened) await tollgate.shutdown();
  });

  it('is approved from a process without agent code and completed by a fresh worker', async () => {
    const first = recordingTool('delete-record', { requireApproval: true });
    const original = await hostAgents(
      [testAgent('durable-agent', [first.tool], deleteThenStop).agent],
      'durability',
      queue,
    );
    opened.push(original);
    const stream = await original.getAgent('durable-agent').stream('Delete keep-me');
    const parked = await chunksOf(stream);
    expect(parked.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'suspended' } });
    const nextOffset = await stream.nextOffset;
    await original.shutdown();

    // A steering process: no agents, no worker. Its decision waits in Temporal for a worker.
    const steering = new Tollgate({ temporal: { taskQueue: queue } });
    opened.push(steering);

    const second = recordingTool('delete-record', { requireApproval: true });
    const fresh = await hostAgents(
      [testAgent('durable-agent', [second.tool], deleteThenStop).agent],
      'durability',
      queue,
    );
    opened.push(fresh);
    const approved = await steering
      .getAgent('durable-agent')
      .approveToolCall({ runId: stream.runId });
    expect(await approved.finishReason).toBe('stop');
    expect(await approved.text).toBe('deleted');
    expect(first.executions).toHaveLength(0);
    expect(second.executions).toHaveLength(1);

    // Any process can replay the run's chunks: the whole run, then from the offset after the wait.
    const replay = await steering.getAgent('durable-agent').observe({ runId: stream.runId });
    expect((await chunksOf(replay)).map((c) => c.type)).toEqual(parked.map((c) => c.type));
    const rest = await steering
      .getAgent('durable-agent')
      .observe({ runId: stream.runId, offset: nextOffset });
    expect((await chunksOf(rest)).map((c) => c.type)).toEqual([
      'tool-result',
      'step-start',
      'text-delta',
      'step-finish',
      'finish',
    ]);
  });
});
