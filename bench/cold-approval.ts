/**
 * What a run that fell out of the worker's cache costs when its approval comes (issue 14, item 5):
 * in one process, on one dev server, two workers of the same agent: one whose cache holds every
 * run (warm), one that keeps only 2 runs (cold: every parked run but the last two was evicted, so
 * its approval replays the run's history first). Each side parks `--runs` runs, then approves
 * the oldest `--samples` of them one after another; it prints approve → tool start and
 * approve → run finished, p50 and p90, per side, and the replayed history's length.
 *
 *   npm run bench:cold-approval -- [--runs 30] [--samples 15]
 */
import './quiet-runtime.js';
import { Client, Connection } from '@temporalio/client';
import { Tollgate, type Agent } from '../src/index.js';
import { gatedLookupAgent } from './approval-latency.js';
import { environmentFacts, startEnvironment } from './environment.js';
import { expectThat, ms, progress, quantile } from './stats.js';
import { parseIntOptions } from './support/args.js';
import { loadAverage } from './support/system.js';

const options = parseIntOptions('cold-approval', process.argv.slice(2), {
  runs: { default: 30, min: 4, max: 1000, help: 'runs parked per side' },
  samples: { default: 15, min: 1, max: 1000, help: 'oldest parked runs approved per side' },
});
expectThat(options.samples <= options.runs - 2, '--samples must leave the 2 cached runs out');

const toolStarts = new Map<string, number>();
const warmAgent = gatedLookupAgent('bench-warm', toolStarts);
const coldAgent = gatedLookupAgent('bench-cold', toolStarts);

interface Side {
  name: string;
  toolStartMs: number[];
  finishMs: number[];
  events: number;
}

/** Parks `--runs` runs of `agent`, then approves the oldest `--samples`, timing each. */
async function measure(name: string, tollgate: Tollgate, agent: Agent, client: Client) {
  const handle = tollgate.getAgent(agent.id);
  const parked: string[] = [];
  progress(`${name}: parking ${options.runs} runs`);
  for (let i = 0; i < options.runs; i++) {
    const first = await handle.generate('Please run the gated lookup.');
    expectThat(first.finishReason === 'suspended', `${first.runId} did not park`);
    parked.push(first.runId);
  }
  const side: Side = { name, toolStartMs: [], finishMs: [], events: 0 };
  const history = await client.workflow.getHandle(parked[0]!).fetchHistory();
  side.events = history.events?.length ?? 0;
  progress(`${name}: approving the oldest ${options.samples}`);
  for (const runId of parked.slice(0, options.samples)) {
    const approvedAt = performance.now();
    const stream = await handle.approveToolCall({ runId });
    for await (const chunk of stream.fullStream) void chunk;
    const finished = performance.now();
    expectThat((await stream.finishReason) === 'stop', `${runId} did not finish`);
    const started = toolStarts.get(runId);
    expectThat(started !== undefined, `the tool of ${runId} never ran`);
    side.toolStartMs.push(started - approvedAt);
    side.finishMs.push(finished - approvedAt);
  }
  return side;
}

const env = await startEnvironment([warmAgent], {});
const cold = new Tollgate({
  agents: { [coldAgent.id]: coldAgent },
  temporal: {
    address: env.server.address,
    namespace: env.server.namespace,
    taskQueue: `${env.taskQueue}-cold`,
  },
  worker: { maxCachedWorkflows: 2, maxConcurrentWorkflowTaskExecutions: 2 },
});
const connection = await Connection.connect({ address: env.server.address });
try {
  await cold.startWorker();
  const client = new Client({ connection, namespace: env.server.namespace });
  const loadBefore = loadAverage();
  const sides = [
    await measure('warm (cache holds every run)', env.tollgate, warmAgent, client),
    await measure('cold (cache of 2: evicted)', cold, coldAgent, client),
  ];
  const [warm, evicted] = sides as [Side, Side];
  console.log('\ncold approval: approve → tool start / approve → run finished');
  for (const side of sides)
    console.log(
      `  ${side.name}: p50 ${ms(quantile(side.toolStartMs, 0.5))} / ${ms(quantile(side.finishMs, 0.5))}, ` +
        `p90 ${ms(quantile(side.toolStartMs, 0.9))} / ${ms(quantile(side.finishMs, 0.9))} ` +
        `(${side.toolStartMs.length} runs; a parked run's history: ${side.events} events)`,
    );
  const signed = (value: number) => (value >= 0 ? `+${ms(value)}` : `−${ms(-value)}`);
  console.log(
    `  cold − warm, p50: ${signed(quantile(evicted.toolStartMs, 0.5) - quantile(warm.toolStartMs, 0.5))} to the tool start, ` +
      `${signed(quantile(evicted.finishMs, 0.5) - quantile(warm.finishMs, 0.5))} to the finish`,
  );
  console.log(
    `settings: ${JSON.stringify(env.server.dynamicConfig ?? {})}; load ${loadBefore} → ${loadAverage()}`,
  );
  for (const line of await environmentFacts(env.cliPath)) console.log(line);
} finally {
  await cold.shutdown();
  await connection.close();
  await env.close();
}
