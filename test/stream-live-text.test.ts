import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, Tollgate, type Chunk } from '../src/index.js';
import type { TollgateClient } from '../src/http-client/index.js';
import type { ListeningServer } from '../src/server/index.js';
import { serveOverHttp } from './support/served.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import { hostAgents } from './support/harness.js';
import { failingTextStream } from './support/failing-stream.js';

const TOKEN = 'live-text-token-0123456789';
const WRONG = ['Wrong ', 'answer ', 'here.'];
const RIGHT = 'Right.';

/**
 * A model whose first attempt for each prompt streams `WRONG`, waits until the test has seen live
 * text on its stream, then fails; the retry (Temporal's next activity attempt) says `RIGHT`.
 */
function flakyModel() {
  const base = scriptedModel(() => ({ text: RIGHT }), 'flaky');
  const failed = new Set<string>();
  const releasedMessages = new Set<string>();
  const waiting = new Map<string, () => void>();
  const isReleased = (key: string) => [...releasedMessages].some((m) => key.includes(m));
  const gate = (key: string) =>
    isReleased(key) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(key, resolve));
  const release = (message: string) => {
    releasedMessages.add(message);
    for (const [key, resolve] of waiting) if (key.includes(message)) resolve();
  };
  const model: typeof base = {
    ...base,
    async doStream(options) {
      const key = JSON.stringify(options.prompt.at(-1)?.content);
      if (failed.has(key)) return base.doStream(options);
      failed.add(key);
      // 60 ms is longer than the activity's 25 ms batching window: one live chunk per delta.
      return failingTextStream(WRONG, 60, () => gate(key));
    },
  };
  return { model, release };
}

/** Reads a stream to its end, releasing the model's failure once live text has been seen. */
async function readReleasing(stream: { fullStream: AsyncIterable<Chunk> }, release: () => void) {
  const chunks: Chunk[] = [];
  for await (const chunk of stream.fullStream) {
    chunks.push(chunk);
    if (chunk.type === 'text-delta') release();
  }
  return chunks;
}

/** The checks every reader of such a run must pass (issue 13, finding 5). */
function expectWithdrawnThenRight(chunks: Chunk[]): void {
  const last = chunks.at(-1)!;
  expect(last.type === 'finish' && last.payload.finishReason).toBe('stop');
  let shown = '';
  for (const chunk of chunks) {
    if (chunk.type === 'text-delta') shown += chunk.payload.text;
    if (chunk.type === 'text-withdrawn') {
      expect(shown.endsWith(chunk.payload.text)).toBe(true);
      shown = shown.slice(0, shown.length - chunk.payload.text.length);
    }
  }
  // What a reader is left with, once withdrawn text is taken back, is what the log holds.
  expect(shown).toBe(RIGHT);
  const withdrawals = chunks.filter((chunk) => chunk.type === 'text-withdrawn');
  expect(withdrawals).toHaveLength(1);
  const withdrawn = withdrawals[0]!;
  const withdrawnText = withdrawn.type === 'text-withdrawn' ? withdrawn.payload.text : '';
  expect(withdrawnText.length).toBeGreaterThan(0);
  expect(WRONG.join('').startsWith(withdrawnText)).toBe(true);
}

describe('live text of a model step attempt that fails', () => {
  const { model, release } = flakyModel();
  const agent = new Agent({ id: 'live-text-agent', instructions: 'Test.', model, tools: {} });
  let tollgate: Tollgate;
  let elsewhere: Tollgate;
  let server: ListeningServer;
  let remote: TollgateClient;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'live-text');
    elsewhere = new Tollgate({ temporal: { taskQueue: tollgate.taskQueue } });
    ({ server, remote } = await serveOverHttp(tollgate, TOKEN));
  });
  afterAll(async () => {
    await server.close();
    await elsewhere.shutdown();
    await tollgate.shutdown();
  });

  it('is withdrawn on an in-process stream, which then shows the log and its finish', async () => {
    const stream = await tollgate.getAgent('live-text-agent').stream('First question.');
    const chunks = await readReleasing(stream, () => release('First question.'));
    expectWithdrawnThenRight(chunks);
    expect(await stream.text).toBe(RIGHT);
    expect(await stream.finishReason).toBe('stop');
    // The log is the truth: the stream's offsets are the log's, live text took none.
    const observed = await elsewhere.getAgent('live-text-agent').observe({ runId: stream.runId });
    const logged = await observed.recorded;
    expect(logged.map((chunk) => chunk.type)).not.toContain('text-withdrawn');
    expect(await observed.text).toBe(RIGHT);
    expect(await stream.nextOffset).toBe(logged.length);
    expect(await stream.recorded).toEqual(logged);
    const output = await tollgate.getAgent('live-text-agent').observe({ runId: stream.runId });
    expect(await output.text).toBe(RIGHT);
  });

  it('is withdrawn on an HTTP stream of a server that shares the worker', async () => {
    const stream = await remote.getAgent('live-text-agent').stream('Second question.');
    const chunks = await readReleasing(stream, () => release('Second question.'));
    expectWithdrawnThenRight(chunks);
    expect(await stream.text).toBe(RIGHT);
    const observed = await elsewhere.getAgent('live-text-agent').observe({ runId: stream.runId });
    expect(await stream.nextOffset).toBe((await observed.recorded).length);
  });
});
