/**
 * A completed run's result carries the end of its log (`RunResult.lastChunks`) only within room
 * that cannot take it past the server's payload limit: on a dev server whose limit is 64 KiB, a
 * run whose answer is 48 KB of text deltas completes, and its result stays under the limit.
 * The log's last 32 KB of chunks on top of the answer would not fit: the run's completion
 * would be refused on every attempt and the run would never finish.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, Tollgate } from '../src/index.js';
import { jsonBytes } from '../src/common/continued-run.js';
import type { RunResult } from '../src/common/run-types.js';
import type { DevServer } from '../src/devserver/index.js';
import { ownDevServer } from './support/own-dev-server.js';
import { scriptedModel } from '../src/testing/index.js';
import { logByQueries, uniqueQueue } from './support/harness.js';
import { within } from '../bench/support/concurrency.js';
import { LAST_CHUNKS_MAX_BYTES } from '../src/workflows/chunk-log.js';
import { chunkLogOf } from './support/chunk-log-of.js';

const PAYLOAD_LIMIT = 64 * 1024;
/**
 * 40 deltas of 1,200 characters, each streamed after the model step's 25 ms delta window so that
 * most are chunks of their own (a loaded machine merges some): a 48 KB answer. The last of those
 * chunks that fit 32 KB, on top of the answer, would make a result of about 80 KB.
 */
const DELTAS = Array.from({ length: 40 }, (_, n) => `${n}`.padEnd(1_200, '.'));

describe('the log end in a result at a 64 KiB payload limit', () => {
  let server: DevServer;
  let tollgate: Tollgate;
  const agent = new Agent({
    id: 'long-answer-agent',
    model: scriptedModel([{ text: DELTAS, delayMs: 40 }]),
  });

  beforeAll(async () => {
    server = await ownDevServer('result-limit', {
      'limit.blobSize.error': PAYLOAD_LIMIT,
      'limit.blobSize.warn': PAYLOAD_LIMIT / 2,
    });
    tollgate = new Tollgate({
      agents: { agent },
      temporal: { address: server.address, taskQueue: uniqueQueue('result-limit') },
    });
    await tollgate.startWorker();
  }, 120_000);
  afterAll(async () => {
    await tollgate?.shutdown();
    await server?.stop();
  });

  it('completes a run with a 48 KB answer, its result within the limit', async () => {
    const output = await within(
      tollgate.getAgent('long-answer-agent').generate('Answer at length.'),
      60_000,
      'the run with a 48 KB answer',
    );
    expect(output.finishReason).toBe('stop');
    expect(output.text === DELTAS.join('')).toBe(true);
    const client = await tollgate.client();
    const result = (await client.workflow.getHandle(output.runId).result()) as RunResult;
    expect(jsonBytes(result)).toBeLessThanOrEqual(PAYLOAD_LIMIT);
    // The answer was a payload the server took; the log's end adds nothing that would not fit.
    expect(result.text === DELTAS.join('')).toBe(true);
    // The case holds whatever the model step merged (a loaded machine merges deltas that arrive
    // late in its window): the log's last 32 KB on top of the answer would not have fitted.
    const unbounded = chunkLogOf(output.runId, await logByQueries(client, output.runId));
    const carried = { ...result, lastChunks: unbounded.lastChunks(LAST_CHUNKS_MAX_BYTES) };
    expect(jsonBytes(carried)).toBeGreaterThan(PAYLOAD_LIMIT);
  });
});
