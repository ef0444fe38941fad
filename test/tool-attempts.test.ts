/**
 * What "once" means for a tool: an attempt that fails (or whose worker dies) is retried, and the
 * retry knows it: `context.attempt` counts the attempts and `context.lastCheckpoint` holds the
 * latest `checkpoint()` of an earlier attempt, carried by Temporal's heartbeat details.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { createTool, type Tollgate } from '../src/index.js';
import type { JsonValue } from '../src/common/json.js';
import { chunksOf, hostAgents, testAgent } from './support/harness.js';
import { activityAttempts } from './support/run-failure.js';

const seen: Array<{ attempt: number; lastCheckpoint: JsonValue | undefined }> = [];
const charge = createTool({
  id: 'charge-card',
  inputSchema: z.object({ amount: z.number() }),
  retry: { maximumAttempts: 3, initialIntervalMs: 100 },
  execute: async ({ amount }, context) => {
    seen.push({ attempt: context.attempt, lastCheckpoint: context.lastCheckpoint });
    const previous = context.lastCheckpoint as { chargeId?: string } | undefined;
    if (previous?.chargeId) return { chargeId: previous.chargeId, amount, reused: true };
    context.checkpoint({ stage: 'started' });
    context.checkpoint({ stage: 'charged', chargeId: 'ch_1' });
    throw new Error('connection reset after the charge went through');
  },
});
const { agent } = testAgent('attempts-agent', [charge], (prompt) =>
  prompt.at(-1)?.role === 'tool'
    ? { text: 'Charged.' }
    : { toolCalls: [{ toolName: 'charge-card', args: { amount: 5 } }] },
);

/** Runs past its 500 ms limit on every attempt; `starts` counts how often execute began. */
let starts = 0;
const slow = createTool({
  id: 'slow-export',
  inputSchema: z.object({}),
  timeoutMs: 500,
  retry: { maximumAttempts: 2, initialIntervalMs: 100 },
  execute: async (_input, context) => {
    starts++;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 5000);
      context.abortSignal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
    });
    return { exported: true };
  },
});
const timing = testAgent('timeout-agent', [slow], (prompt) =>
  prompt.at(-1)?.role === 'tool'
    ? { text: 'The export did not finish.' }
    : { toolCalls: [{ toolName: 'slow-export', args: {} }] },
);
let tollgate: Tollgate;

beforeAll(async () => {
  tollgate = await hostAgents([agent, timing.agent], 'tool-attempts');
});
afterAll(async () => {
  await tollgate?.shutdown();
});

describe('tool attempts and checkpoints', () => {
  it("gives a retried call its attempt number and the failed attempt's last checkpoint", async () => {
    const output = await tollgate.getAgent('attempts-agent').generate('charge 5');
    expect(output.finishReason).toBe('stop');
    expect(seen).toEqual([
      { attempt: 1, lastCheckpoint: undefined },
      { attempt: 2, lastCheckpoint: { stage: 'charged', chargeId: 'ch_1' } },
    ]);
    expect(await activityAttempts(tollgate, output.runId, 'executeTool')).toEqual([2]);
    expect(output.text).toBe('Charged.');
  });

  it('says how often execute may have started when the last attempt timed out', async () => {
    const stream = await tollgate.getAgent('timeout-agent').stream('export');
    const chunks = await chunksOf(stream);
    const error = chunks.find((chunk) => chunk.type === 'tool-error');
    expect(error?.payload).toMatchObject({
      error:
        'Tool "slow-export" did not finish: it ran past its 500 ms limit on its last attempt; execute may have started up to 2 time(s), its effects happen once only where it uses context.idempotencyKey.',
    });
    expect(starts).toBe(2);
    expect(await stream.text).toBe('The export did not finish.');
  });
});
