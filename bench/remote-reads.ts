/**
 * What a client in a process without the worker asks Temporal (on demand, not a test): the load
 * bench's gated agent runs in a child worker; this process parks `--runs` runs one after another
 * with `generate()` and releases them with `approveToolCallGenerate()`, counting every call its
 * client makes (by method) and the dev server's CPU per run; then it times `--calls` reads of one
 * kind each against one parked and one closed run: a log query, a describe, a whole-history read,
 * with the server's and the worker's CPU per call.
 *
 *   npm run build && node dist/bench/remote-reads.js [--runs 20] [--calls 200]
 */
import './quiet-runtime.js';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunksQuery } from '../src/common/messages.js';
import { findTemporalCli, Tollgate } from '../src/index.js';
import { processCpuMs } from './cpu.js';
import { environmentFacts } from './environment.js';
import { LOAD_AGENT_ID, loadPrompt } from './load/agent.js';
import { parseIntOptions } from './support/args.js';
import { ChildWorker } from './support/child.js';
import { recordCalls, type ClientCall } from './support/client-calls.js';
import { onCleanup, runBench } from './support/cleanup.js';
import { RestartableServer } from './support/dev-server.js';
import { loadAverage } from './support/system.js';

const options = parseIntOptions('remote-reads', process.argv.slice(2), {
  runs: { default: 20, min: 1, max: 10_000, help: 'runs parked and released, one at a time' },
  calls: { default: 200, min: 10, max: 100_000, help: 'reads timed per kind' },
});

const WORKER = fileURLToPath(new URL('./load/worker-entry.js', import.meta.url));
const WARM_UPS = 3;

/** How often each method was called, per run, by name. */
function perRun(calls: readonly ClientCall[], runs: number): string {
  const counts = new Map<string, number>();
  for (const { method } of calls) counts.set(method, (counts.get(method) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, n]) => `${name} ${(n / runs).toFixed(2)}`)
    .join(', ');
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-remote-reads-'));
  onCleanup('removing the temp directory', () => rm(dir, { recursive: true, force: true }));
  const cliPath = await findTemporalCli();
  const server = await RestartableServer.start(cliPath, join(dir, 'dev.db'));
  onCleanup('stopping the dev server', () => server.stop());
  const taskQueue = `remote-reads-${randomUUID().slice(0, 8)}`;
  const worker = new ChildWorker({
    name: 'remote-reads worker',
    script: WORKER,
    temporal: { address: server.address, namespace: server.namespace, taskQueue },
    env: { MAX_CACHED_WORKFLOWS: '500' },
  });
  onCleanup('stopping the worker', () => worker.stop('SIGTERM', 20_000));
  await worker.whenReady();
  const temporal = { address: server.address, namespace: server.namespace, taskQueue };
  const tollgate = new Tollgate({ temporal });
  onCleanup('shutting the client down', () => tollgate.shutdown());
  const client = await tollgate.client();
  const calls = recordCalls(client);
  const agent = tollgate.getAgent(LOAD_AGENT_ID);
  const serverPid = server.server.pid;
  const cpu = (pid: number) => processCpuMs(pid) ?? NaN;

  console.log('Tollgate remote reads benchmark');
  for (const fact of await environmentFacts(cliPath)) console.log(`environment: ${fact}`);
  console.log(
    `settings: ${options.runs} runs, ${options.calls} reads per kind; load ${loadAverage()}`,
  );

  for (let i = 0; i < WARM_UPS; i++) {
    const { runId } = await agent.generate(loadPrompt(`warm-${i}`));
    await agent.approveToolCallGenerate({ runId });
  }
  const phase = async (name: string, step: (i: number) => Promise<void>) => {
    calls.length = 0;
    const serverBefore = cpu(serverPid);
    const began = performance.now();
    for (let i = 0; i < options.runs; i++) await step(i);
    const wall = (performance.now() - began) / options.runs;
    const serverMs = (cpu(serverPid) - serverBefore) / options.runs;
    console.log(
      `${name}: ${wall.toFixed(1)} ms a run, dev server CPU ${serverMs.toFixed(1)} ms a run; calls a run: ${perRun(calls, options.runs)}`,
    );
  };
  const parked: string[] = [];
  await phase('park (generate() until suspended)', async (i) => {
    const output = await agent.generate(loadPrompt(`r${i}`));
    if (output.finishReason !== 'suspended') throw new Error(`run ${output.runId} did not park`);
    parked.push(output.runId);
  });
  await phase('release (approveToolCallGenerate() until stop)', async (i) => {
    const output = await agent.approveToolCallGenerate({ runId: parked[i]! });
    if (output.finishReason !== 'stop') throw new Error(`run ${output.runId} did not finish`);
  });

  const open = (await agent.generate(loadPrompt('open'))).runId;
  const closed = parked[0]!;
  const read = async (name: string, call: () => Promise<unknown>) => {
    for (let i = 0; i < 20; i++) await call();
    const serverBefore = cpu(serverPid);
    const workerBefore = cpu(worker.pid);
    const began = performance.now();
    for (let i = 0; i < options.calls; i++) await call();
    const each = (value: number) => (value / options.calls).toFixed(2);
    console.log(
      `${name}: ${each(performance.now() - began)} ms, dev server CPU ${each(cpu(serverPid) - serverBefore)} ms, worker CPU ${each(cpu(worker.pid) - workerBefore)} ms a call`,
    );
  };
  const history = (runId: string) => () =>
    client.workflowService.getWorkflowExecutionHistory({
      namespace: server.namespace,
      execution: { workflowId: runId },
      maximumPageSize: 256,
    });
  await read('log query, parked run', () =>
    client.workflow.getHandle(open).query(chunksQuery, { offset: 0 }),
  );
  await read('log query, closed run', () =>
    client.workflow.getHandle(closed).query(chunksQuery, { offset: 0 }),
  );
  await read('describe, parked run', () => client.workflow.getHandle(open).describe());
  await read('whole history, parked run', history(open));
  console.log(
    `load after: ${loadAverage()}; dev server tuned (${Object.entries(server.server.dynamicConfig)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', ')})`,
  );
}

runBench(main);
