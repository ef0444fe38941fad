import { describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { makeChunk, type Chunk } from '../../src/common/chunks.js';
import type { RunResult } from '../../src/common/run-types.js';
import { carriedChunks, carriedFrom } from '../../src/temporal-client/closing-chunks.js';
import type { HistoryEvent } from '../../src/temporal-client/run-ending.js';
import { chunkLogOf } from '../support/chunk-log-of.js';
import {
  LAST_CHUNKS_MAX,
  LAST_CHUNKS_MAX_BYTES,
  RESULT_FLOOR_BYTES,
  withLastChunks,
} from '../../src/workflows/chunk-log.js';

const RUN = 'run-1';
const text = (n: number, size = 10) => makeChunk(RUN, 'text-delta', { text: `${n}`.padEnd(size) });
const finish = makeChunk(RUN, 'finish', {
  finishReason: 'stop',
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
});

const logOf = (chunks: Chunk[], base = 0) => chunkLogOf(RUN, chunks, base);

/** A client that never connects: `carriedChunks` only decodes with its data converter. */
const client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });

/** What a tail that read `close` takes from it at `offset`. */
const chunksAtClose = async (via: Client, runId: string, close: HistoryEvent, offset: number) =>
  carriedFrom(await carriedChunks(via, runId, close), offset);

function completedWith(result: unknown): HistoryEvent {
  return temporal.api.history.v1.HistoryEvent.fromObject({
    workflowExecutionCompletedEventAttributes: {
      result: { payloads: [defaultPayloadConverter.toPayload(result)] },
    },
  });
}

describe('the end of a run log in its result (pure)', () => {
  const bytesOf = (chunks: Chunk[]) => new TextEncoder().encode(JSON.stringify(chunks)).length;

  it('holds the whole of a short log, at offsets of the whole log', () => {
    const chunks = [text(1), text(2), finish];
    expect(logOf(chunks).lastChunks(LAST_CHUNKS_MAX_BYTES)).toEqual({ offset: 0, chunks });
    expect(logOf(chunks, 40).lastChunks(LAST_CHUNKS_MAX_BYTES)).toEqual({ offset: 40, chunks });
  });

  it('holds only the last chunks of a long log, within the count and size bounds', () => {
    const many = logOf([...Array.from({ length: 300 }, (_, n) => text(n)), finish]);
    const byCount = many.lastChunks(LAST_CHUNKS_MAX_BYTES);
    expect(byCount.chunks).toHaveLength(LAST_CHUNKS_MAX);
    expect(byCount.offset).toBe(301 - LAST_CHUNKS_MAX);
    expect(byCount.chunks.at(-1)).toEqual(finish);

    const large = logOf([...Array.from({ length: 10 }, (_, n) => text(n, 8_000)), finish]);
    const bySize = large.lastChunks(LAST_CHUNKS_MAX_BYTES);
    expect(bytesOf(bySize.chunks)).toBeLessThanOrEqual(LAST_CHUNKS_MAX_BYTES);
    expect(bySize.chunks.length).toBeGreaterThan(1);
    expect(bySize.chunks.length).toBeLessThan(11);
    expect(bySize.offset + bySize.chunks.length).toBe(11);
    // Bytes, not characters: three bytes a character here.
    const wide = logOf([makeChunk(RUN, 'text-delta', { text: '水'.repeat(4_000) }), finish]);
    expect(wide.lastChunks(10_000).chunks).toEqual([finish]);
  });

  it('holds nothing rather than one chunk over the size bound', () => {
    const huge = makeChunk(RUN, 'text-delta', { text: 'x'.repeat(LAST_CHUNKS_MAX_BYTES) });
    expect(logOf([huge]).lastChunks(LAST_CHUNKS_MAX_BYTES)).toEqual({ offset: 1, chunks: [] });
  });

  it('keeps a result within what the server took from the run, or the floor', () => {
    const result: RunResult = {
      finishReason: 'stop',
      text: 'y'.repeat(40_000),
      steps: 1,
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    };
    const log = logOf([text(1, 10_000), text(2, 10_000), finish]);
    const resultBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;
    // The last step's output (56 KB) leaves room for the finish and one delta, not two.
    const carried = withLastChunks(result, log, 56_000);
    expect(carried.lastChunks).toEqual({ offset: 1, chunks: [text(2, 10_000), finish] });
    expect(resultBytes(carried)).toBeLessThanOrEqual(56_000);
    // A step no larger than the text: no room, the result is as it was.
    expect(withLastChunks(result, log, 40_000)).toBe(result);
    // A small run gets the floor.
    const small = { ...result, text: 'Done.' };
    const short = logOf([text(1), text(2), finish]);
    expect(withLastChunks(small, short, 200).lastChunks?.chunks).toHaveLength(3);
    const floored = withLastChunks(small, log, 200);
    expect(floored.lastChunks?.chunks).toEqual([text(2, 10_000), finish]);
    expect(resultBytes(floored)).toBeLessThanOrEqual(RESULT_FLOOR_BYTES);
  });
});

describe('reading the end of a log from a close event (pure)', () => {
  const result = (lastChunks?: RunResult['lastChunks']): RunResult => ({
    finishReason: 'stop',
    text: '',
    steps: 1,
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    ...(lastChunks ? { lastChunks } : {}),
  });
  const chunks = [text(5), text(6), finish];
  const close = completedWith(result({ offset: 5, chunks }));

  it('answers a reader at or after the chunks begin, through the end', async () => {
    expect(await chunksAtClose(client, RUN, close, 5)).toEqual({
      chunks,
      offset: 5,
      total: 8,
      closed: true,
    });
    expect(await chunksAtClose(client, RUN, close, 7)).toEqual({
      chunks: [finish],
      offset: 7,
      total: 8,
      closed: true,
    });
    expect(await chunksAtClose(client, RUN, close, 8)).toMatchObject({ chunks: [], closed: true });
  });

  it('leaves to the query a reader before them or past the end, and closes without them', async () => {
    expect(await chunksAtClose(client, RUN, close, 4)).toBeUndefined();
    expect(await chunksAtClose(client, RUN, close, 9)).toBeUndefined();
    // A run from before the chunks were carried, a sub-agent's run, a malformed result.
    expect(await chunksAtClose(client, RUN, completedWith(result()), 0)).toBeUndefined();
    const malformed = completedWith({ lastChunks: { offset: 'x', chunks: 3 } });
    expect(await chunksAtClose(client, RUN, malformed, 0)).toBeUndefined();
    const terminated = temporal.api.history.v1.HistoryEvent.fromObject({
      workflowExecutionTerminatedEventAttributes: { reason: 'ops' },
    });
    expect(await chunksAtClose(client, RUN, terminated, 0)).toBeUndefined();
    const garbage = temporal.api.history.v1.HistoryEvent.fromObject({
      workflowExecutionCompletedEventAttributes: {
        result: { payloads: [{ metadata: { encoding: Buffer.from('binary/x') }, data: [1] }] },
      },
    });
    expect(await chunksAtClose(client, RUN, garbage, 0)).toBeUndefined();
  });
});
