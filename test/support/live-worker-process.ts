/**
 * A worker in its own process for `test/live-tokens.test.ts`: it hosts `live-agent` on
 * TASK_QUEUE and publishes live deltas to the Redis of TOLLGATE_LIVE_REDIS_URL (read by
 * `new Tollgate()`), so the test process sees the model's text only across processes.
 *
 * The model answers by prompt: "story" streams `STORY` a piece every `STORY_DELAY_MS`; "flaky"
 * streams `WRONG`, fails its first attempt, and its retry says `RIGHT`.
 *
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, TOLLGATE_LIVE_REDIS_URL.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { hostAgentInChild } from '../../bench/support/child.js';
import { Agent } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { failingTextStream } from './failing-stream.js';
import { LIVE_AGENT_ID, RIGHT, STORY, STORY_DELAY_MS, WRONG } from './live-script.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

const base = scriptedModel((prompt) => {
  const text = JSON.stringify(prompt.at(-1)?.content ?? '');
  if (text.includes('story')) return { text: STORY, delayMs: STORY_DELAY_MS };
  return { text: RIGHT };
}, LIVE_AGENT_ID);

const failedOnce = new Set<string>();
const model: typeof base = {
  ...base,
  async doStream(options) {
    const key = JSON.stringify(options.prompt.at(-1)?.content ?? '');
    if (!key.includes('flaky') || failedOnce.has(key)) return base.doStream(options);
    failedOnce.add(key);
    // Time for the test to see the wrong text live before the attempt fails.
    return failingTextStream(WRONG, 200, () => new Promise((resolve) => setTimeout(resolve, 1000)));
  },
};

const agent = new Agent({
  id: LIVE_AGENT_ID,
  instructions: 'You are a test agent whose text travels across processes.',
  model,
  tools: {},
});

await hostAgentInChild('live-worker-process', agent);
