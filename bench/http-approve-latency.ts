/**
 * Approve over HTTP: for sequential parked runs, the time from sending
 * `POST /api/agents/:id/approve-tool-call` to (a) the response headers (the decision was
 * applied: the server answers only after the run's update returned) and (b) the end of its SSE
 * stream (the run finished). Client, server, worker and dev server share this machine and talk
 * over loopback. Starts its own dev server; takes about a minute.
 * Run with `npm run build && node dist/bench/http-approve-latency.js`.
 */
import './quiet-runtime.js';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Chunk } from '../src/common/chunks.js';
import { agentPath, RUN_ID_HEADER, type ApproveBody } from '../src/common/http-api.js';
import { readSseEvents } from '../src/http-client/sse-parser.js';
import { createTollgateServer } from '../src/server/index.js';
import { APPROVAL_AGENT_ID, approvalAgent } from './approval-latency.js';
import { environmentFacts, startEnvironment, type BenchEnvironment } from './environment.js';
import { expectThat, ms, progress, quantile } from './stats.js';
import { BENCH_TOKEN, postForSse } from './support/sse-post.js';

const SAMPLES = 50;
const WARMUPS = 2;

export interface HttpApproveSample {
  /** POST sent → response headers received. */
  toHeadersMs: number;
  /** POST sent → the SSE stream's last byte (after its `finish` chunk). */
  toStreamEndMs: number;
}

async function approveOverHttp(url: string, runId: string): Promise<HttpApproveSample> {
  const body: ApproveBody = { runId };
  const sent = performance.now();
  const response = await postForSse(url + agentPath(APPROVAL_AGENT_ID, 'approveToolCall'), body);
  const headers = performance.now();
  expectThat(response.ok && response.body !== null, `approve of ${runId}: HTTP ${response.status}`);
  expectThat(response.headers.get(RUN_ID_HEADER) === runId, `approve of ${runId}: wrong run id`);
  const chunks: Chunk[] = [];
  for await (const event of readSseEvents(response.body)) {
    expectThat(event.type !== 'error', `approve of ${runId}: stream error ${event.data}`);
    // 'live' events repeat text as it streams; the log's chunks are the 'message' events.
    if (event.type === 'message') chunks.push(JSON.parse(event.data) as Chunk);
  }
  const end = performance.now();
  const last = chunks.at(-1);
  expectThat(
    last?.type === 'finish' && last.payload.finishReason === 'stop',
    `approved run ${runId} did not finish with stop (last chunk ${JSON.stringify(last)})`,
  );
  expectThat(
    chunks.filter((c) => c.type === 'tool-result').length === 1,
    `approved run ${runId} did not run its tool exactly once`,
  );
  return { toHeadersMs: headers - sent, toStreamEndMs: end - sent };
}

function line(label: string, values: number[]): string {
  const figures = [
    `p50 ${ms(quantile(values, 0.5))}`,
    `p99 ${ms(quantile(values, 0.99))}`,
    `min ${ms(Math.min(...values))}`,
    `max ${ms(Math.max(...values))}`,
    `n=${values.length}`,
  ];
  return `  ${label.padEnd(34)} ${figures.join(', ')}`;
}

/**
 * Parks `samples + warmups` runs of the approval agent (which `env` must host) one after another
 * and approves each over HTTP, through a Tollgate HTTP server started here on a free port.
 */
export async function measureHttpApprove(
  env: BenchEnvironment,
  options: { samples: number; warmups: number } = { samples: SAMPLES, warmups: WARMUPS },
): Promise<HttpApproveSample[]> {
  const server = await createTollgateServer({
    tollgate: env.tollgate,
    auth: { tokens: [{ token: BENCH_TOKEN, id: 'bench', roles: ['bench'] }] },
  }).listen({ port: 0 });
  try {
    const agent = env.tollgate.getAgent(APPROVAL_AGENT_ID);
    const samples: HttpApproveSample[] = [];
    progress(
      `approve over HTTP: ${options.samples} sequential parked runs after ${options.warmups} warm-ups`,
    );
    for (let i = 0; i < options.warmups + options.samples; i++) {
      const parked = await agent.generate('Please run the gated lookup.');
      expectThat(parked.finishReason === 'suspended', `run ${parked.runId} did not wait`);
      const sample = await approveOverHttp(server.url, parked.runId);
      if (i >= options.warmups) samples.push(sample);
    }
    return samples;
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  progress('starting the Temporal dev server, a Tollgate worker and the HTTP server');
  const env = await startEnvironment([approvalAgent()]);
  try {
    const facts = await environmentFacts(env.cliPath);
    const samples = await measureHttpApprove(env);
    const load = loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');
    console.log(
      [
        'Tollgate: approve-tool-call over HTTP',
        ...facts.map((fact) => `environment: ${fact}`),
        `load average after the runs (1/5/15 min): ${load}`,
        `${SAMPLES} sequential parked runs (gated tool, scripted model), ${WARMUPS} warm-ups not counted; ` +
          `p99 of ${SAMPLES} is the ${Math.ceil(0.99 * SAMPLES)}th smallest; client, server, worker and Temporal on one machine`,
        line(
          'POST sent -> response headers',
          samples.map((s) => s.toHeadersMs),
        ),
        line(
          'POST sent -> SSE stream finished',
          samples.map((s) => s.toStreamEndMs),
        ),
      ].join('\n'),
    );
  } finally {
    progress('shutting down');
    await env.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
