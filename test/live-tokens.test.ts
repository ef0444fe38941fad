/**
 * Live tokens across processes (issue 16.2): the worker runs in a child process and publishes
 * live deltas to a real Redis; the API server and its SSE clients live in this process.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildWorker } from '../bench/support/child.js';
import { testChildWorker } from './support/child-worker.js';
import { freePorts } from '../src/devserver/free-ports.js';
import { Tollgate, type Chunk } from '../src/index.js';
import type { StreamItem } from '../src/stream/stream-items.js';
import type { AgentStream } from '../src/stream/agent-stream.js';
import type { TollgateClient } from '../src/http-client/index.js';
import type { ListeningServer } from '../src/server/index.js';
import { uniqueQueue } from './support/harness.js';
import { LIVE_AGENT_ID, RIGHT, STORY, STORY_DELAY_MS, WRONG } from './support/live-script.js';
import { findOrStartRedis, type TestRedis } from './support/redis-broker.js';
import { serveOverHttp } from './support/served.js';

const WORKER_SCRIPT = fileURLToPath(new URL('./support/live-worker-process.js', import.meta.url));
const TOKEN = 'live-tokens-token-0123456789';

interface Seen {
  item: StreamItem;
  at: number;
}

/** Reads a stream's items to the end, noting when each arrived; `onItem` sees each at once. */
async function readItems(stream: AgentStream, onItem?: (item: StreamItem) => void) {
  const seen: Seen[] = [];
  for await (const item of stream.items) {
    seen.push({ item, at: Date.now() });
    onItem?.(item);
  }
  return seen;
}

/** The text a reader is left with once withdrawn text is taken back, and the withdrawals. */
async function shownText(stream: AgentStream): Promise<{ text: string; withdrawn: string[] }> {
  let text = '';
  const withdrawn: string[] = [];
  for await (const chunk of stream.fullStream) {
    if (chunk.type === 'text-delta') text += chunk.payload.text;
    if (chunk.type === 'text-withdrawn') {
      expect(text.endsWith(chunk.payload.text)).toBe(true);
      text = text.slice(0, text.length - chunk.payload.text.length);
      withdrawn.push(chunk.payload.text);
    }
  }
  return { text, withdrawn };
}

const isLiveText = (item: StreamItem) =>
  item.live !== undefined && item.chunk.type === 'text-delta';
const isLogText = (item: StreamItem) =>
  item.offset !== undefined && item.chunk.type === 'text-delta';
const textOf = (chunk: Chunk) => (chunk.type === 'text-delta' ? chunk.payload.text : '');

/** Whether the run's history holds a completed model step (the activity that streams). */
async function modelStepCompleted(tollgate: Tollgate, runId: string): Promise<boolean> {
  const { events } = await (await tollgate.client()).workflow.getHandle(runId).fetchHistory();
  const scheduled = new Set<string>();
  for (const event of events ?? []) {
    const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (type === 'modelStep') scheduled.add(String(event.eventId));
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed && scheduled.has(String(completed.scheduledEventId))) return true;
  }
  return false;
}

describe('live tokens from a worker in another process, over Redis', () => {
  const taskQueue = uniqueQueue('live-tokens');
  let redis: TestRedis;
  let worker: ChildWorker;
  let api: Tollgate;
  let server: ListeningServer;
  let remote: TollgateClient;

  beforeAll(async () => {
    redis = await findOrStartRedis();
    worker = testChildWorker('live-worker', WORKER_SCRIPT, taskQueue, {
      TOLLGATE_LIVE_REDIS_URL: redis.url,
    });
    await worker.whenReady();
    api = new Tollgate({ temporal: { taskQueue }, liveDeltas: { redis: { url: redis.url } } });
    ({ server, remote } = await serveOverHttp(api, TOKEN));
  });

  afterAll(async () => {
    await server?.close();
    await api?.shutdown();
    await worker?.stop('SIGTERM');
    await redis?.stop();
  });

  it('reaches an SSE client of the API process while the model step still runs, then the log confirms it once', async () => {
    const stream = await remote.getAgent(LIVE_AGENT_ID).stream('Tell me a story.');
    let stepRunningAtFirstDelta: Promise<boolean> | undefined;
    const seen = await readItems(stream, (item) => {
      if (isLiveText(item) && !stepRunningAtFirstDelta) {
        stepRunningAtFirstDelta = modelStepCompleted(api, stream.runId).then((done) => !done);
      }
    });
    const live = seen.filter(({ item }) => isLiveText(item));
    const logged = seen.filter(({ item }) => isLogText(item));
    // One live chunk per piece: the pieces come farther apart than the worker's batching window.
    expect(live.map(({ item }) => textOf(item.chunk))).toEqual(STORY);
    expect(await stepRunningAtFirstDelta).toBe(true);
    // The first piece showed long before the log held any of the step's text.
    expect(logged[0]!.at - live[0]!.at).toBeGreaterThan(STORY_DELAY_MS * (STORY.length - 2));
    // The log's chunks took the live text over: shown once, nothing withdrawn.
    expect(logged.map(({ item }) => textOf(item.chunk))).toEqual(STORY);
    const shown = await shownText(stream);
    expect(shown).toEqual({ text: STORY.join(''), withdrawn: [] });
    expect(await stream.text).toBe(STORY.join(''));
    expect(await stream.finishReason).toBe('stop');
  });

  it('shows the whole text once to a stream that attached after deltas went by', async () => {
    const agent = remote.getAgent(LIVE_AGENT_ID);
    const first = await agent.stream('Another story, please.');
    let late: Promise<AgentStream> | undefined;
    let liveCount = 0;
    // Attach once two pieces went by: the late stream never got them live.
    const firstRead = readItems(first, (item) => {
      if (isLiveText(item) && ++liveCount === 2) late = agent.observe({ runId: first.runId });
    });
    await firstRead;
    expect(late).toBeDefined();
    const lateStream = await late!;
    const lateSeen = await readItems(lateStream);
    expect(await shownText(lateStream)).toEqual({ text: STORY.join(''), withdrawn: [] });
    expect(await lateStream.text).toBe(STORY.join(''));
    // It saw at most the pieces after it attached live; the log brought the rest.
    const lateLive = lateSeen.filter(({ item }) => isLiveText(item)).length;
    expect(lateLive).toBeLessThan(STORY.length);
    // And the in-process client of the API's Tollgate reads the same run's log alike.
    const inProcess = await api.getAgent(LIVE_AGENT_ID).observe({ runId: first.runId });
    expect(await shownText(inProcess)).toEqual({ text: STORY.join(''), withdrawn: [] });
  });

  it('withdraws across processes the live text of an attempt that failed', async () => {
    const stream = await remote.getAgent(LIVE_AGENT_ID).stream('A flaky answer, please.');
    const seen = await readItems(stream);
    const liveTexts = seen.filter(({ item }) => isLiveText(item)).map(({ item }) => item.chunk);
    // The failed attempt's text came live from the other process, and was taken back.
    expect(liveTexts.map(textOf).slice(0, WRONG.length)).toEqual(WRONG);
    const shown = await shownText(stream);
    expect(shown.text).toBe(RIGHT);
    expect(shown.withdrawn).toEqual([WRONG.join('')]);
    expect(await stream.text).toBe(RIGHT);
    const logged = await stream.recorded;
    expect(logged.map((chunk) => chunk.type)).not.toContain('text-withdrawn');
  });

  it('falls back to the log, with no gap and no duplicate, when Redis cannot be reached or is not configured', async () => {
    const [deadPort] = await freePorts(1);
    const unreachable = new Tollgate({
      temporal: { taskQueue },
      liveDeltas: { redis: { url: `redis://127.0.0.1:${deadPort}`, connectTimeout: 500 } },
    });
    const local = new Tollgate({ temporal: { taskQueue }, liveDeltas: {} });
    const warn = console.warn;
    const warnings: string[] = [];
    console.warn = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
    try {
      for (const tollgate of [unreachable, local]) {
        const served = await serveOverHttp(tollgate, TOKEN);
        try {
          const stream = await served.remote.getAgent(LIVE_AGENT_ID).stream('A story again.');
          const seen = await readItems(stream);
          expect(seen.filter(({ item }) => isLiveText(item))).toHaveLength(0);
          expect(await shownText(stream)).toEqual({ text: STORY.join(''), withdrawn: [] });
          expect(await stream.finishReason).toBe('stop');
        } finally {
          await served.server.close();
        }
      }
    } finally {
      console.warn = warn;
      await unreachable.shutdown();
      await local.shutdown();
    }
    expect(warnings.some((line) => line.includes('cannot reach Redis'))).toBe(true);
  });
});
