/**
 * The worker child of `bench/live-tokens.ts`: hosts `live-bench` on TASK_QUEUE, publishing live
 * deltas to the Redis of TOLLGATE_LIVE_REDIS_URL. Its model streams `DELTAS` deltas, one every
 * `INTERVAL_MS`, each carrying the wall-clock time (ms, fractional) at which the model's stream
 * yielded it: `[1764800000123.456]`.
 *
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, TOLLGATE_LIVE_REDIS_URL, DELTAS,
 * INTERVAL_MS.
 */
import './quiet-runtime.js';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { Agent } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { hostAgentInChild } from './support/child.js';

export const LIVE_BENCH_AGENT_ID = 'live-bench';

const deltas = Number(process.env.DELTAS ?? '20');
const intervalMs = Number(process.env.INTERVAL_MS ?? '40');

/** Wall-clock ms with sub-ms precision; both processes read the same machine clock. */
const now = () => performance.timeOrigin + performance.now();

const base = scriptedModel(() => ({ text: 'unused' }), LIVE_BENCH_AGENT_ID);
const model: typeof base = {
  ...base,
  async doStream() {
    return {
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: 'text' });
          for (let i = 0; i < deltas; i++) {
            await new Promise((resolve) => setTimeout(resolve, intervalMs));
            controller.enqueue({ type: 'text-delta', id: 'text', delta: `[${now().toFixed(3)}]` });
          }
          controller.enqueue({ type: 'text-end', id: 'text' });
          controller.enqueue({
            type: 'finish',
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: {
              inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: deltas, text: deltas, reasoning: 0 },
            },
          });
          controller.close();
        },
      }),
    };
  },
};

await hostAgentInChild(
  'live-tokens-worker',
  new Agent({ id: LIVE_BENCH_AGENT_ID, instructions: 'Bench.', model, tools: {} }),
);
