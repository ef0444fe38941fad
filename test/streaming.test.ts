import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Tollgate } from '../src/index.js';
import { hostAgents, testAgent } from './support/harness.js';

describe('streaming', () => {
  const pieces = ['The ', 'quick ', 'brown ', 'fox ', 'jumps.'];
  // Pieces 300 ms apart: a stall under 275 ms (a loaded machine) leaves them apart in the stream.
  const { agent } = testAgent('streaming-agent', [], () => ({ text: pieces, delayMs: 300 }));
  let tollgate: Tollgate;
  let steering: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'streaming');
    steering = new Tollgate({ temporal: { taskQueue: tollgate.taskQueue } });
  });
  afterAll(async () => {
    await steering.shutdown();
    await tollgate.shutdown();
  });

  it('delivers text deltas while the model streams, before the run ends', async () => {
    const started = Date.now();
    const stream = await tollgate.getAgent('streaming-agent').stream('Tell me about the fox.');
    const arrivals: Array<{ text: string; at: number }> = [];
    for await (const text of stream.textStream) arrivals.push({ text, at: Date.now() - started });
    expect(arrivals.map((a) => a.text).join('')).toBe(pieces.join(''));
    expect(arrivals.length).toBeGreaterThanOrEqual(3);
    // The model takes ~1.5 s; the first delta must arrive well before the last one.
    expect(arrivals.at(-1)!.at - arrivals[0]!.at).toBeGreaterThan(600);
    const handle = (await tollgate.client()).workflow.getHandle(stream.runId);
    const closedAt = (await handle.describe()).closeTime!.getTime() - started;
    expect(arrivals[0]!.at).toBeLessThan(closedAt);
    expect(await stream.text).toBe(pieces.join(''));
    expect(await stream.finishReason).toBe('stop');
  });

  it('lets another process observe the same text from the durable log', async () => {
    const stream = await tollgate.getAgent('streaming-agent').stream('Again.');
    const observed = await steering.getAgent('streaming-agent').observe({ runId: stream.runId });
    expect(await observed.text).toBe(await stream.text);
    expect(await observed.finishReason).toBe('stop');
  });
});
