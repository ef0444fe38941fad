/**
 * A log longer than one read: the workflow answers at most 1,000 chunks or about 1 MB a query, so
 * a stream that reads a longer log by queries reads the rest at once, not at its next idle read.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tollgate } from '../src/index.js';
import { recordCalls } from '../bench/support/client-calls.js';
import { IDLE_READ_MS } from '../src/temporal-client/history-watch.js';
import { chunksOf, hostAgents, recordingTool, testAgent, typesOf } from './support/harness.js';

/** Three steps of 400 KB of text each: a log of 1.2 MB, over the 1 MB one read answers. */
const STEPS = 3;
const TEXT_BYTES = 400_000;

describe('a log longer than one read', () => {
  const note = recordingTool('note');
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const textOf = (step: number) => String(step).repeat(TEXT_BYTES);
  // Each step writes 400 KB; the first two call an ungated tool, the last a gated one, so the
  // run parks and its log stops growing.
  const { agent } = testAgent('long-log-agent', [note.tool, deleteRecord.tool], (prompt) => {
    const step = prompt.filter((message) => message.role === 'tool').length + 1;
    const toolName = step < STEPS ? 'note' : 'delete-record';
    return { text: textOf(step), toolCalls: [{ toolName, args: { id: `rec-${step}` } }] };
  });
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'long-log');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  it('streams a parked run with a 1.2 MB log whole without waiting for the idle read', async () => {
    const parked = await tollgate.getAgent('long-log-agent').generate('go');
    expect(parked.finishReason).toBe('suspended');
    // A new observer: nothing this process's worker relayed is held for it, so it queries.
    const calls = recordCalls(await tollgate.client());
    const stream = await tollgate.getAgent('long-log-agent').observe({ runId: parked.runId });
    const chunks = await chunksOf(stream);
    const queries = calls.filter((call) => call.method === 'queryWorkflow');
    const types = typesOf(chunks);
    expect(types.filter((type) => type === 'tool-result')).toHaveLength(STEPS - 1);
    expect(types.slice(-2)).toEqual(['tool-call-approval', 'finish']);
    expect(await stream.text).toBe([1, 2, 3].map(textOf).join(''));
    expect(await stream.finishReason).toBe('suspended');
    // Before the fix, the chunks past the first 1 MB came at the idle read, IDLE_READ_MS after
    // the first read ended; now the second read follows it at once (however long each takes on a
    // loaded machine).
    expect(queries).toHaveLength(2);
    expect(queries[1]!.startMs - queries[0]!.endMs).toBeLessThan(IDLE_READ_MS / 2);
    expect(note.executions).toHaveLength(STEPS - 1);
    expect(deleteRecord.executions).toHaveLength(0);
  });
});
