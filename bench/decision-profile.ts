/**
 * Where a decision's time goes: for sequential parked runs, every call the deciding client makes
 * to Temporal between `approveToolCall()` (or the HTTP approve POST) and its answer, with when it
 * started and how long it took, then the time to the gated tool's start. `--decider other` decides
 * from a second runtime that did not start the runs (a separate HTTP process, say), so nothing it
 * knows of them comes from having started them.
 *
 *   npm run build && node dist/bench/decision-profile.js [--samples 20] [--decider same|other]
 */
import './quiet-runtime.js';
import { loadavg } from 'node:os';
import { agentPath, type ApproveBody } from '../src/common/http-api.js';
import { readSseEvents } from '../src/http-client/sse-parser.js';
import { Tollgate } from '../src/index.js';
import { createTollgateServer } from '../src/server/index.js';
import { APPROVAL_AGENT_ID, gatedLookupAgent } from './approval-latency.js';
import { environmentFacts, startEnvironment } from './environment.js';
import { expectThat, median, ms, progress } from './stats.js';
import { parseOptions } from './support/args.js';
import { recordCalls, type ClientCall } from './support/client-calls.js';
import { BENCH_TOKEN, postForSse } from './support/sse-post.js';

const options = parseOptions('decision-profile', process.argv.slice(2), {
  samples: { default: 20, min: 3, max: 1000, help: 'decisions timed per path' },
  decider: {
    choices: ['same', 'other'] as const,
    default: 'same' as const,
    help: 'same: the runtime that started the runs decides; other: a second runtime does',
  },
});

interface Sample {
  /** Calls made from the decision's start until it answered, relative to its start. */
  calls: ClientCall[];
  toAnswerMs: number;
  toToolStartMs: number;
}

const starts = new Map<string, number>();

async function main(): Promise<void> {
  const env = await startEnvironment([gatedLookupAgent(APPROVAL_AGENT_ID, starts)]);
  const decider =
    options.decider === 'same'
      ? env.tollgate
      : new Tollgate({
          temporal: {
            address: env.server.address,
            namespace: env.server.namespace,
            taskQueue: env.taskQueue,
          },
        });
  const server = await createTollgateServer({
    tollgate: decider,
    auth: { tokens: [{ token: BENCH_TOKEN, id: 'bench', roles: ['bench'] }] },
  }).listen({ port: 0 });
  try {
    const facts = await environmentFacts(env.cliPath);
    const calls = recordCalls(await decider.client());
    const starter = env.tollgate.getAgent(APPROVAL_AGENT_ID);
    const agent = decider.getAgent(APPROVAL_AGENT_ID);
    const park = async () => {
      const parked = await starter.generate('Please run the gated lookup.');
      expectThat(parked.finishReason === 'suspended', `run ${parked.runId} did not wait`);
      return parked.runId;
    };
    const sample = async (decide: (runId: string) => Promise<() => Promise<void>>) => {
      const runId = await park();
      const from = calls.length;
      const sent = performance.now();
      const finish = await decide(runId);
      const answered = performance.now();
      const inWindow = calls.slice(from);
      await finish();
      const made = inWindow.map((call) => ({
        method: call.method,
        startMs: call.startMs - sent,
        endMs: call.endMs - sent,
      }));
      const toolStart = starts.get(runId);
      expectThat(toolStart !== undefined, `the gated tool of ${runId} never started`);
      return { calls: made, toAnswerMs: answered - sent, toToolStartMs: toolStart - sent };
    };
    const viaApi = async (runId: string) => {
      const stream = await agent.approveToolCall({ runId });
      return async () => {
        for await (const chunk of stream.fullStream) void chunk;
      };
    };
    const viaHttp = async (runId: string) => {
      const body: ApproveBody = { runId };
      const url = server.url + agentPath(APPROVAL_AGENT_ID, 'approveToolCall');
      const response = await postForSse(url, body);
      expectThat(response.ok && response.body !== null, `approve of ${runId}: ${response.status}`);
      return async () => {
        for await (const event of readSseEvents(response.body!)) void event;
      };
    };
    const paths = { 'approveToolCall()': viaApi, 'HTTP approve-tool-call': viaHttp };
    const lines = [
      `Tollgate: decision profile (decider: ${options.decider})`,
      ...facts.map((fact) => `environment: ${fact}`),
    ];
    for (const [label, decide] of Object.entries(paths)) {
      progress(`${label}: 2 warm-ups, then ${options.samples} sequential parked runs`);
      for (let i = 0; i < 2; i++) await sample(decide);
      const samples: Sample[] = [];
      for (let i = 0; i < options.samples; i++) samples.push(await sample(decide));
      lines.push('', ...profileLines(label, samples));
    }
    lines.push(
      '',
      `load average after (1/5/15 min): ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}`,
    );
    console.log(lines.join('\n'));
  } finally {
    await server.close();
    if (decider !== env.tollgate) await decider.shutdown();
    await env.close();
  }
}

/** Median start and duration of each call, by its place in the sequence, and the totals. */
function profileLines(label: string, samples: Sample[]): string[] {
  const shapes = new Map<string, Sample[]>();
  for (const each of samples) {
    const shape = each.calls.map((call) => call.method).join(' > ');
    shapes.set(shape, [...(shapes.get(shape) ?? []), each]);
  }
  const lines = [
    `${label}: p50 to answer ${ms(median(samples.map((s) => s.toAnswerMs)))}, ` +
      `p50 to tool start ${ms(median(samples.map((s) => s.toToolStartMs)))}, n=${samples.length}`,
  ];
  for (const [shape, group] of [...shapes].sort((a, b) => b[1].length - a[1].length)) {
    lines.push(
      `  ${group.length} of ${samples.length} made: ${shape || '(no call)'} ` +
        `(p50 to answer ${ms(median(group.map((s) => s.toAnswerMs)))}, ` +
        `to tool start ${ms(median(group.map((s) => s.toToolStartMs)))})`,
    );
    group[0]!.calls.forEach((call, index) => {
      const start = median(group.map((s) => s.calls[index]!.startMs));
      const took = median(group.map((s) => s.calls[index]!.endMs - s.calls[index]!.startMs));
      lines.push(`    ${call.method.padEnd(34)} starts +${ms(start)}, takes ${ms(took)}`);
    });
  }
  return lines;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
