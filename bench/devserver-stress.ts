/**
 * Whether a dev server gets stuck when many of its calls are cancelled mid-way (on demand, not a
 * test). The CLI v1.5.1 builds with an SQLite driver that, when a query's context is cancelled
 * just after a row, leaks the statement; SQLite's interrupt flag then never clears on the
 * server's only connection, and every later call fails with `interrupted (9)` until a restart
 * (docs/performance.md "The stuck dev server"). This starts a dev server with the CLI that
 * `findTemporalCli` finds (`TEMPORAL_CLI` picks another), parks `--workflows` runs that no
 * worker takes, then for `--seconds` has `--concurrency` callers read their histories (long
 * polls and plain), describe them, signal them, list them and start more, each call with a
 * deadline of 0.2 ms to `--max-deadline-ms`. After the load it probes the server for 10 s with
 * calls that have 10 s each: a server that fails them is stuck.
 *
 *   npm run build && node dist/bench/devserver-stress.js [--concurrency 32] [--seconds 30]
 *   TEMPORAL_CLI=/path/to/stock/temporal node dist/bench/devserver-stress.js
 */
import './quiet-runtime.js';
import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findTemporalCli, startDevServer } from '../src/index.js';
import { environmentFacts } from './environment.js';
import { parseIntOptions } from './support/args.js';
import { loadAverage } from './support/system.js';

const options = parseIntOptions('devserver-stress', process.argv.slice(2), {
  concurrency: { default: 32, min: 1, max: 512, help: 'callers at once' },
  seconds: { default: 30, min: 1, max: 3600, help: 'how long the callers run' },
  'max-deadline-ms': { default: 20, min: 1, max: 10_000, help: "the longest call's deadline" },
  workflows: { default: 100, min: 1, max: 10_000, help: 'runs parked for the callers to read' },
});

const TASK_QUEUE = 'devserver-stress-no-worker';
const PROBE_DEADLINE_MS = 10_000;
const PROBE_SECONDS = 10;

type Outcome = 'deadline or cancelled' | 'interrupted (9)' | 'other error';

/** Sorts a failed call by its message and its causes' (the client wraps the gRPC error). */
function outcomeOf(error: unknown): Outcome {
  let text = '';
  for (let e = error as Error | undefined; e; e = e.cause as Error | undefined) {
    text += ` ${e.message ?? String(e)}`;
  }
  if (text.includes('interrupted')) return 'interrupted (9)';
  if (/deadline|cancel/i.test(text)) return 'deadline or cancelled';
  return 'other error';
}

/** One call of the mix, against one of the parked runs. */
function randomCall(client: Client, ids: string[], namespace: string): () => Promise<unknown> {
  const workflowId = ids[Math.floor(Math.random() * ids.length)]!;
  const service = client.connection.workflowService;
  const execution = { workflowId };
  switch (Math.floor(Math.random() * 6)) {
    case 0:
      return () =>
        service.getWorkflowExecutionHistory({ namespace, execution, waitNewEvent: true });
    case 1:
      return () => service.getWorkflowExecutionHistory({ namespace, execution });
    case 2:
      return () => client.workflow.getHandle(workflowId).describe();
    case 3:
      return () => client.workflow.getHandle(workflowId).signal('poke');
    case 4:
      return () => service.listWorkflowExecutions({ namespace, pageSize: 10 });
    default:
      return () => startParked(client);
  }
}

async function startParked(client: Client): Promise<string> {
  const workflowId = `stress-${randomUUID()}`;
  await client.workflow.start('parked', { taskQueue: TASK_QUEUE, workflowId });
  return workflowId;
}

function count(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** Makes `call` with `deadlineMs` and counts how it ended: `ok`, or its `Outcome`. */
function tally(
  connection: Connection,
  counts: Map<string, number>,
  deadlineMs: number,
  call: () => Promise<unknown>,
): Promise<void> {
  return connection.withDeadline(Date.now() + deadlineMs, call).then(
    () => count(counts, 'ok'),
    (error: unknown) => count(counts, outcomeOf(error)),
  );
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-devserver-stress-'));
  const cliPath = await findTemporalCli();
  const server = await startDevServer({ cliPath, dbFile: join(dir, 'dev-server.db'), tuned: true });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  try {
    const ids: string[] = [];
    for (let i = 0; i < options.workflows; i++) ids.push(await startParked(client));
    const load = { start: loadAverage(), end: '' };
    const counts = new Map<string, number>();
    const stopAt = Date.now() + options.seconds * 1000;
    const caller = async () => {
      while (Date.now() < stopAt) {
        const deadlineMs = 0.2 + Math.random() * (options['max-deadline-ms'] - 0.2);
        await tally(connection, counts, deadlineMs, randomCall(client, ids, server.namespace));
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, caller));
    load.end = loadAverage();
    await sleep(5000);
    const probes = new Map<string, number>();
    const probe = (call: () => Promise<unknown>) =>
      tally(connection, probes, PROBE_DEADLINE_MS, call);
    for (let i = 0; i < PROBE_SECONDS; i++) {
      await probe(() => client.workflow.getHandle(ids[i % ids.length]!).describe());
      await probe(() => startParked(client));
      await sleep(1000);
    }
    const failedProbes = [...probes].filter(([key]) => key !== 'ok').reduce((n, [, v]) => n + v, 0);
    console.log('Dev server stress (cancelled calls)');
    for (const line of await environmentFacts(cliPath)) console.log(`environment: ${line}`);
    console.log(
      `settings: ${options.concurrency} callers for ${options.seconds} s, deadlines 0.2-${options['max-deadline-ms']} ms, ${options.workflows} parked runs; tuned dev server, SQLite file; load ${load.start} -> ${load.end}`,
    );
    console.log(`calls: ${[...counts].map(([key, n]) => `${key} ${n}`).join(', ')}`);
    console.log(
      `probes after the load: ${[...probes].map(([key, n]) => `${key} ${n}`).join(', ')}`,
    );
    console.log(
      failedProbes > 0
        ? `verdict: STUCK (${failedProbes} of ${PROBE_SECONDS * 2} probes failed after the load)`
        : `verdict: recovered (all ${PROBE_SECONDS * 2} probes answered)`,
    );
  } finally {
    await connection.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
