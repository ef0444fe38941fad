/**
 * Live tokens across processes: the time from the worker's model stream yielding a text delta to
 * an SSE client of an API server in another process receiving it, over Redis pub/sub. Each delta
 * carries the wall-clock time it was yielded (same machine, same clock). For contrast, the same
 * deltas' arrival in the durable log (what a client gets without live deltas). Starts its own
 * Temporal dev server, finds or starts a Redis, runs the worker in a child process.
 * Run with `npm run bench:live-tokens` (RUNS, DELTAS, INTERVAL_MS, CONCURRENCY tune it).
 */
import './quiet-runtime.js';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Chunk } from '../src/common/chunks.js';
import { agentPath, RUN_ID_HEADER, type StreamBody } from '../src/common/http-api.js';
import { findTemporalCli, startDevServer, Tollgate } from '../src/index.js';
import { readSseEvents } from '../src/http-client/sse-parser.js';
import { createTollgateServer } from '../src/server/index.js';
import { findOrStartRedis } from '../test/support/redis-broker.js';
import { environmentFacts } from './environment.js';
import { expectThat, ms, progress, quantile } from './stats.js';
import { BENCH_TOKEN, postForSse } from './support/sse-post.js';
import { ChildWorker } from './support/child.js';

const RUNS = Number(process.env.RUNS ?? '10');
const DELTAS = Number(process.env.DELTAS ?? '20');
const INTERVAL_MS = Number(process.env.INTERVAL_MS ?? '40');
const CONCURRENCY = Number(process.env.CONCURRENCY ?? '1');
const WARMUPS = 1;
const AGENT_ID = 'live-bench';
const WORKER_SCRIPT = fileURLToPath(new URL('./live-tokens-worker.js', import.meta.url));

const now = () => performance.timeOrigin + performance.now();
const STAMP = /\[(\d+\.\d+)\]/g;

interface RunSample {
  /** Yield → SSE `event: live` received, per delta. */
  live: number[];
  /** Yield → the log's chunk received, per delta. */
  log: number[];
  /** Of the run's first delta only. */
  firstLive: number | undefined;
  firstLog: number;
}

function stampsOf(text: string): number[] {
  return [...text.matchAll(STAMP)].map((match) => Number(match[1]));
}

/** Starts a run over HTTP and reads its SSE stream, timing each stamped delta's arrival. */
async function oneRun(url: string): Promise<RunSample> {
  const body: StreamBody = { messages: [{ role: 'user', content: 'Stream stamps.' }] };
  const response = await postForSse(url + agentPath(AGENT_ID, 'stream'), body);
  expectThat(response.ok && response.body !== null, `stream: HTTP ${response.status}`);
  const runId = response.headers.get(RUN_ID_HEADER) ?? '?';
  const live: number[] = [];
  const log: number[] = [];
  let logText = '';
  let finished = false;
  for await (const event of readSseEvents(response.body)) {
    const at = now();
    if (event.type === 'live') {
      const { chunk } = JSON.parse(event.data) as { chunk: Chunk };
      if (chunk.type === 'text-delta')
        live.push(...stampsOf(chunk.payload.text).map((s) => at - s));
      continue;
    }
    expectThat(event.type === 'message', `run ${runId}: stream error ${event.data}`);
    const chunk = JSON.parse(event.data) as Chunk;
    if (chunk.type === 'text-delta') {
      logText += chunk.payload.text;
      log.push(...stampsOf(chunk.payload.text).map((s) => at - s));
    }
    if (chunk.type === 'finish') finished = chunk.payload.finishReason === 'stop';
  }
  expectThat(finished, `run ${runId} did not finish with stop`);
  expectThat(stampsOf(logText).length === DELTAS, `run ${runId}: the log lacks deltas`);
  return { live, log, firstLive: live[0], firstLog: log[0]! };
}

function line(label: string, values: number[]): string {
  if (values.length === 0) return `  ${label.padEnd(44)} no samples`;
  const figures = [
    `p50 ${ms(quantile(values, 0.5))}`,
    `p95 ${ms(quantile(values, 0.95))}`,
    `max ${ms(Math.max(...values))}`,
    `n=${values.length}`,
  ];
  return `  ${label.padEnd(44)} ${figures.join(', ')}`;
}

async function main(): Promise<void> {
  progress('starting the Temporal dev server, Redis, a worker child and the HTTP server');
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-bench-live-'));
  const cliPath = await findTemporalCli();
  const server = await startDevServer({ cliPath, dbFile: join(dir, 'dev-server.db') });
  const redis = await findOrStartRedis();
  const taskQueue = `bench-live-${randomUUID().slice(0, 8)}`;
  const worker = new ChildWorker({
    name: 'live-tokens-worker',
    script: WORKER_SCRIPT,
    temporal: { address: server.address, namespace: server.namespace, taskQueue },
    env: {
      TOLLGATE_LIVE_REDIS_URL: redis.url,
      DELTAS: String(DELTAS),
      INTERVAL_MS: String(INTERVAL_MS),
    },
  });
  const api = new Tollgate({
    temporal: { address: server.address, namespace: server.namespace, taskQueue },
    liveDeltas: { redis: { url: redis.url } },
  });
  const http = await createTollgateServer({
    tollgate: api,
    auth: { tokens: [{ token: BENCH_TOKEN, id: 'bench', roles: ['bench'] }] },
  }).listen({ port: 0 });
  try {
    await worker.whenReady();
    const facts = await environmentFacts(cliPath);
    const loadBefore = loadavg()
      .map((v) => v.toFixed(2))
      .join(' ');
    progress(`${WARMUPS} warm-up run(s), then ${RUNS} rounds of ${CONCURRENCY} concurrent run(s)`);
    for (let i = 0; i < WARMUPS; i++) await oneRun(http.url);
    const samples: RunSample[] = [];
    for (let round = 0; round < RUNS; round++) {
      samples.push(
        ...(await Promise.all(Array.from({ length: CONCURRENCY }, () => oneRun(http.url)))),
      );
    }
    const loadAfter = loadavg()
      .map((v) => v.toFixed(2))
      .join(' ');
    const live = samples.flatMap((s) => s.live);
    const missed = samples.length * DELTAS - live.length;
    console.log(
      [
        'Tollgate: live tokens across processes (worker child -> Redis pub/sub -> API server -> SSE client)',
        ...facts.map((fact) => `environment: ${fact}`),
        `broker: Redis at ${redis.url}${redis.started ? ' (started by the bench)' : ''}`,
        `load average (1/5/15 min) before: ${loadBefore}; after: ${loadAfter}`,
        `${RUNS} rounds x ${CONCURRENCY} concurrent run(s), ${DELTAS} deltas per run, one every ${INTERVAL_MS} ms; ${WARMUPS} warm-up run not counted`,
        line('model yields delta -> SSE client (live)', live),
        line(
          '  first delta of each run (live)',
          samples.flatMap((s) => s.firstLive ?? []),
        ),
        line(
          'model yields delta -> SSE client (log only)',
          samples.flatMap((s) => s.log),
        ),
        line(
          '  first delta of each run (log only)',
          samples.map((s) => s.firstLog),
        ),
        `  deltas not received live (shown from the log instead): ${missed}`,
        `target: live p50 <= 50 ms -> ${quantile(live, 0.5) <= 50 ? 'met' : 'NOT met'}`,
      ].join('\n'),
    );
  } finally {
    progress('shutting down');
    await http.close();
    await api.shutdown();
    await worker.stop('SIGTERM');
    await redis.stop();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
