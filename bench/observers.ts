/**
 * Observer memory (issue 13, finding 6): parks runs on approval, holds observers open on them
 * (in-process and over HTTP SSE) for `--minutes`, and prints heap and RSS after a forced GC every
 * `--interval` seconds, then the growth per hour of each (least-squares slope over the later half
 * of the samples) and what that would come to over an hour and over a 3-day wait. At the end it
 * terminates the runs and checks that every observer ended with `RUN_TERMINATED`.
 * Run with `npm run bench:observers -- --minutes 15` (needs `node --expose-gc`, which the npm
 * script passes).
 */
import './quiet-runtime.js';
import { TollgateClient } from '../src/http-client/index.js';
import type { AgentStream } from '../src/stream/agent-stream.js';
import { createTollgateServer } from '../src/server/index.js';
import { APPROVAL_AGENT_ID, approvalAgent } from './approval-latency.js';
import { parseIntOptions } from './support/args.js';
import { environmentFacts, startEnvironment } from './environment.js';
import { expectThat, progress } from './stats.js';

const TOKEN = 'bench-token-0123456789abcdef';
const MB = 1024 * 1024;

const options = parseIntOptions('observers', process.argv.slice(2), {
  runs: { default: 50, min: 1, max: 1000, help: 'parked runs' },
  observers: { default: 2, min: 1, max: 20, help: 'observers per run (every other one over HTTP)' },
  minutes: { default: 10, min: 1, max: 24 * 60, help: 'how long to hold them open' },
  interval: { default: 30, min: 1, max: 3600, help: 'seconds between samples' },
});

interface Sample {
  minutes: number;
  heapMb: number;
  rssMb: number;
}

function sample(startedAt: number): Sample {
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return { minutes: (Date.now() - startedAt) / 60_000, heapMb: heapUsed / MB, rssMb: rss / MB };
}

/** Least-squares slope of `y` over `x`, per unit of `x`. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const sxy = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0);
  const sxx = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

async function main(): Promise<void> {
  expectThat(
    typeof (globalThis as { gc?: unknown }).gc === 'function',
    'run with node --expose-gc (npm run bench:observers does)',
  );
  progress('starting the Temporal dev server, a Tollgate worker and the HTTP server');
  const env = await startEnvironment([approvalAgent()]);
  const server = await createTollgateServer({
    tollgate: env.tollgate,
    auth: { tokens: [{ token: TOKEN, id: 'bench', roles: ['bench'] }] },
  }).listen({ port: 0 });
  const remote = new TollgateClient({ baseUrl: `${server.url}/`, token: TOKEN });
  try {
    const facts = await environmentFacts(env.cliPath);
    const agent = env.tollgate.getAgent(APPROVAL_AGENT_ID);
    progress(`parking ${options.runs} runs on approval`);
    const parked: Array<{ runId: string; offset: number }> = [];
    for (let i = 0; i < options.runs; i++) {
      const stream = await agent.stream('Please run the gated lookup.');
      expectThat((await stream.finishReason) === 'suspended', `run ${stream.runId} did not wait`);
      parked.push({ runId: stream.runId, offset: await stream.nextOffset });
    }
    const observers: AgentStream[] = [];
    for (const run of parked) {
      for (let k = 0; k < options.observers; k++) {
        observers.push(
          k % 2 === 0
            ? await agent.observe(run)
            : await remote.getAgent(APPROVAL_AGENT_ID).observe(run),
        );
      }
    }
    let ended = 0;
    for (const observer of observers) void observer.finishReason.finally(() => ended++);
    progress(`holding ${observers.length} observers open for ${options.minutes} min`);
    const startedAt = Date.now();
    const samples: Sample[] = [sample(startedAt)];
    const print = (s: Sample) =>
      console.log(
        `  t=${s.minutes.toFixed(1).padStart(6)} min  heap ${s.heapMb.toFixed(1).padStart(7)} MB  rss ${s.rssMb.toFixed(1).padStart(7)} MB`,
      );
    print(samples[0]!);
    while (Date.now() - startedAt < options.minutes * 60_000) {
      await new Promise((resolve) => setTimeout(resolve, options.interval * 1000));
      const next = sample(startedAt);
      samples.push(next);
      print(next);
      expectThat(ended === 0, `${ended} observers ended while their runs were parked`);
    }
    // Early samples still settle start-up garbage and allocator growth: the later half is the trend.
    const steady = samples.slice(Math.floor(samples.length / 2));
    const heapPerHour = slope(steady.map((s) => [s.minutes / 60, s.heapMb]));
    const rssPerHour = slope(steady.map((s) => [s.minutes / 60, s.rssMb]));
    const over = (perHour: number) =>
      perHour <= 0
        ? 'no growth'
        : `1 h: +${perHour.toFixed(1)} MB, 3 days: +${(perHour * 72).toFixed(0)} MB if the slope held`;
    console.log(
      [
        'Tollgate: memory of observers held open on parked runs',
        ...facts.map((fact) => `environment: ${fact}`),
        `${observers.length} observers (${options.runs} parked runs × ${options.observers}, every other one over HTTP SSE), held ${options.minutes} min, sampled every ${options.interval} s after a forced GC`,
        `slopes over the later half of the samples (from t=${steady[0]!.minutes.toFixed(1)} min):`,
        `  heap: ${steady[0]!.heapMb.toFixed(1)} → ${steady.at(-1)!.heapMb.toFixed(1)} MB, ${heapPerHour.toFixed(2)} MB/h (${over(heapPerHour)})`,
        `  rss:  ${steady[0]!.rssMb.toFixed(1)} → ${steady.at(-1)!.rssMb.toFixed(1)} MB, ${rssPerHour.toFixed(2)} MB/h (${over(rssPerHour)})`,
      ].join('\n'),
    );
    progress('terminating the runs: every observer must end with RUN_TERMINATED');
    const client = await env.tollgate.client();
    await Promise.all(
      parked.map((run) => client.workflow.getHandle(run.runId).terminate('bench done')),
    );
    const endings = await Promise.all(observers.map((observer) => observer.recorded));
    const terminated = endings.filter((chunks) => {
      const last = chunks.at(-1);
      return last?.type === 'error' && last.payload.code === 'RUN_TERMINATED';
    }).length;
    expectThat(
      terminated === observers.length,
      `${observers.length - terminated} observers did not end with RUN_TERMINATED`,
    );
    console.log(
      `  all ${terminated} observers ended with RUN_TERMINATED after the runs were terminated`,
    );
  } finally {
    progress('shutting down');
    await server.close();
    await env.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
