/**
 * Reading a completed run's log end from its result (`RunResult.lastChunks`): an observer of a
 * completed run, which this process's worker relayed nothing to, reads the chunks from the close
 * event and sends no query (which would replay the whole closed run on a worker); an observer
 * whose offset lies before those chunks queries, and both see the log a query answers.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { recordCalls, type ClientCall } from '../bench/support/client-calls.js';
import type { Chunk } from '../src/common/chunks.js';
import type { RunResult } from '../src/common/run-types.js';
import type { Tollgate } from '../src/index.js';
import { LAST_CHUNKS_MAX_BYTES, RESULT_FLOOR_BYTES } from '../src/workflows/chunk-log.js';
import { chunksOf, hostAgents, logByQueries, recordingTool, testAgent } from './support/harness.js';

/** Text per step of a `long` run: three steps make a log larger than a result carries. */
const LONG_TEXT = LAST_CHUNKS_MAX_BYTES / 2;

describe('the last read of a completed run', () => {
  const note = recordingTool('note');
  // Two tool steps, then an answer; with `long` in the prompt each step writes LONG_TEXT.
  const { agent } = testAgent('closed-read-agent', [note.tool], (prompt) => {
    const step = prompt.filter((message) => message.role === 'tool').length + 1;
    const long = JSON.stringify(prompt).includes('long');
    const text = long ? String(step).repeat(LONG_TEXT) : `step ${step}. `;
    if (step < 3) return { text, toolCalls: [{ toolName: 'note', args: { id: `n-${step}` } }] };
    return { text: `${text}Done.` };
  });
  let tollgate: Tollgate;
  let client: Client;
  let calls: ClientCall[];
  const queries = () => calls.filter((call) => call.method === 'queryWorkflow').length;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'closed-read');
    client = await tollgate.client();
    calls = recordCalls(client);
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  async function observed(
    runId: string,
    offset?: number,
  ): Promise<{ chunks: Chunk[]; sent: number }> {
    const before = queries();
    const stream = await tollgate
      .getAgent('closed-read-agent')
      .observe({ runId, ...(offset !== undefined ? { offset } : {}) });
    const chunks = await chunksOf(stream);
    return { chunks, sent: queries() - before };
  }

  it('shows a short completed run whole from its result, with no query', async () => {
    const done = await tollgate.getAgent('closed-read-agent').generate('short');
    expect(done.finishReason).toBe('stop');
    const { chunks, sent } = await observed(done.runId);
    expect(sent).toBe(0);
    expect(chunks).toEqual(await logByQueries(client, done.runId));
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'stop' } });
    expect(note.executions).toHaveLength(2);
  });

  it('queries for what lies before the chunks a result carries, and shows the same log', async () => {
    const done = await tollgate.getAgent('closed-read-agent').generate('long');
    const text = ['1', '2', '3'].map((digit) => digit.repeat(LONG_TEXT)).join('');
    expect(done.text === `${text}Done.`).toBe(true);
    const result = (await client.workflow.getHandle(done.runId).result()) as RunResult;
    const carried = result.lastChunks!;
    expect(carried.offset).toBeGreaterThan(0);
    expect(JSON.stringify(result).length).toBeLessThanOrEqual(LONG_TEXT + RESULT_FLOOR_BYTES);

    const log = await logByQueries(client, done.runId);
    const whole = await observed(done.runId);
    expect(whole.sent).toBeGreaterThanOrEqual(1);
    expect(whole.chunks).toEqual(log);
    // From where the carried chunks begin, nothing is queried.
    const end = await observed(done.runId, carried.offset);
    expect(end.sent).toBe(0);
    expect(end.chunks).toEqual(log.slice(carried.offset));
  });
});
