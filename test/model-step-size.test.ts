/**
 * The size of a model step's result: over the limit it fails the run on the first attempt with
 * PAYLOAD_TOO_LARGE (instead of a completion Temporal rejects, retried after heartbeat timeouts),
 * and the step's text is sent once, so a reply of 1.2 MB fits under Temporal's 2 MiB blob limit.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, type Tollgate } from '../src/index.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import { stepTextDeltas, textDeltasField } from '../src/common/step-text.js';
import type { ModelStepOutput } from '../src/common/run-types.js';
import { chunksOf, hostAgents } from './support/harness.js';
import { activityAttempts, runFailure } from './support/run-failure.js';

/** `count` deltas of `size` characters each. */
function bigText(count: number, size: number): string[] {
  return Array.from({ length: count }, (_, i) => String(i % 10).repeat(size));
}

// Heartbeats short enough that a completion Temporal rejected (the fault the size check prevents)
// still ends the run within the test's time (measured without the check: failed in 26 s), and
// long enough for a loaded machine: the 4 MB step took 1.6 s on 2 busy cores here, and passed a
// 5 s timeout on CI once.
const modelStep = { heartbeatTimeoutMs: 20_000, maximumAttempts: 3 };
const huge = scriptedModel([{ text: bigText(25, 100_000) }], 'huge');
const large = scriptedModel([{ text: bigText(12, 100_000) }], 'large');
const small = scriptedModel([{ text: bigText(2, 6000) }], 'small');
// Issue 25.6: re-run with a step whose tool call carries 4 MB of arguments.
const bigArgs = scriptedModel(
  [{ toolCalls: [{ toolName: 'store', args: { blob: 'x'.repeat(4 * 1024 * 1024) } }] }],
  'big-args',
);
const agents = [
  new Agent({ id: 'size-huge', model: huge, modelStep }),
  new Agent({ id: 'size-large', model: large, modelStep }),
  new Agent({ id: 'size-big-args', model: bigArgs, modelStep }),
  new Agent({
    id: 'size-limited',
    model: small,
    modelStep: { ...modelStep, maxOutputBytes: 10_000 },
  }),
];
let tollgate: Tollgate;

beforeAll(async () => {
  tollgate = await hostAgents(agents, 'step-size');
});
afterAll(async () => {
  await tollgate?.shutdown();
});

describe('model step output size', () => {
  it('fails a 2.5 MB step on its first attempt with PAYLOAD_TOO_LARGE naming size and limit', async () => {
    const stream = await tollgate.getAgent('size-huge').stream('write a lot');
    await chunksOf(stream);
    expect(await stream.finishReason).toBe('error');
    // Read back from the run's log (the live stream's ending is another matter: issue 13).
    const logged = await chunksOf(
      await tollgate.getAgent('size-huge').observe({ runId: stream.runId }),
    );
    const error = logged.findLast((chunk) => chunk.type === 'error');
    expect(error?.payload).toMatchObject({
      error: expect.stringMatching(/over the limit of 1900000 bytes/),
    });
    const failure = await runFailure(tollgate, stream.runId);
    expect(failure.type).toBe('tollgate.PAYLOAD_TOO_LARGE');
    expect(failure.message).toMatch(/produced \d{7} bytes/);
    expect(huge.prompts).toHaveLength(1);
    expect(await activityAttempts(tollgate, stream.runId, 'modelStep')).toEqual([1]);
  });

  it('fails a step with 4 MB of tool-call arguments on its first attempt, with the code on its error chunk', async () => {
    const output = await tollgate.getAgent('size-big-args').generate('store it');
    // One assertion, so that a wrong code shows the error it came with.
    expect({ reason: output.finishReason, code: output.errorCode, error: output.error }).toEqual({
      reason: 'error',
      code: 'PAYLOAD_TOO_LARGE',
      error: expect.stringMatching(/over the limit of 1900000 bytes/),
    });
    expect(bigArgs.prompts).toHaveLength(1);
    expect(await activityAttempts(tollgate, output.runId, 'modelStep')).toEqual([1]);
  });

  it('completes a 1.2 MB step: its text travels once, not twice', async () => {
    const output = await tollgate.getAgent('size-large').generate('write quite a lot');
    expect(output.finishReason).toBe('stop');
    expect(output.text).toBe(bigText(12, 100_000).join(''));
    expect(large.prompts).toHaveLength(1);
    expect(await activityAttempts(tollgate, output.runId, 'modelStep')).toEqual([1]);
  });

  it("honours the agent's modelStep.maxOutputBytes", async () => {
    const output = await tollgate.getAgent('size-limited').generate('write a little');
    expect(output.finishReason).toBe('error');
    const failure = await runFailure(tollgate, output.runId);
    expect(failure.type).toBe('tollgate.PAYLOAD_TOO_LARGE');
    expect(failure.message).toMatch(/produced \d+ bytes of output, over the limit of 10000 bytes/);
    expect(small.prompts).toHaveLength(1);
  });

  it('rejects a maxOutputBytes that is not a whole positive number', () => {
    expect(() => new Agent({ id: 'bad', model: small, modelStep: { maxOutputBytes: 0 } })).toThrow(
      expect.objectContaining({
        code: 'INVALID_AGENT',
        message: expect.stringContaining('maxOutputBytes'),
      }),
    );
  });
});

describe('step text deltas (pure)', () => {
  const step = (fields: Partial<ModelStepOutput>): ModelStepOutput => ({
    toolCalls: [],
    responseMessages: [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Hello, ' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 't', input: {} },
          { type: 'text', text: 'world' },
        ],
      },
    ],
    finishReason: 'stop',
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    ...fields,
  });

  it('cuts the deltas from the response text by their lengths', () => {
    expect(stepTextDeltas(step({ textDeltaLengths: [3, 6, 3] }))).toEqual(['Hel', 'lo, wo', 'rld']);
  });

  it('uses written-out deltas as recorded by older workers', () => {
    expect(stepTextDeltas(step({ textDeltas: ['Hello, world'] }))).toEqual(['Hello, world']);
  });

  it('writes the deltas out only when they do not join to the response text', () => {
    const { responseMessages } = step({});
    expect(textDeltasField(['Hello', ', world'], responseMessages)).toEqual({
      textDeltaLengths: [5, 7],
    });
    expect(textDeltasField(['Hi'], responseMessages)).toEqual({ textDeltas: ['Hi'] });
  });
});
