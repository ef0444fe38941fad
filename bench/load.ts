/**
 * Load benchmark (on demand, not a test): parks N agent runs on an approval with one Tollgate
 * worker process whose workflow cache is bounded, reads the worker's memory from /proc as the
 * parked runs pile up, then approves them all and lets them finish. The same N is then parked and
 * released on the same server with two bare Temporal workflows (`bench/baseline/`): the bare
 * baseline (wait for a signal, run one activity) and the same-work baseline (a model step before
 * the wait; the marked tool and the answering model step after it). Tollgate's throughput is
 * given as a ratio of each.
 *
 *   npm run build && node dist/bench/load.js [--runs 10000] [--concurrency 50] [--cache 500]
 *
 * Bounded by `--seconds` (default 3600): Tollgate's park phase stops launching runs at 40% of it,
 * its release phase at 75%, the bare baseline's park and release at 81.25% and 87.5%, the
 * same-work baseline's at 93.75% and 100%; the report says
 * so and gives per-run rates for what was done. A step that fails (the dev server restarting) is
 * retried (up to 8 attempts, ~45 s), and counted.
 */
import './quiet-runtime.js';
import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapStatistics } from 'node:v8';
import { findTemporalCli, isTollgateError, Tollgate } from '../src/index.js';
import type { RunResult } from '../src/common/run-types.js';
import { parkedRun, parkedRunAnswered, parkedUpdate, releaseSignal } from './baseline/workflows.js';
import { ownCpuMs, processCpuMs } from './cpu.js';
import { environmentFacts } from './environment.js';
import { LOAD_AGENT_ID, loadPrompt } from './load/agent.js';
import { progress } from './stats.js';
import { parseIntOptions } from './support/args.js';
import { ChildWorker } from './support/child.js';
import { cleanUp, onCleanup, runBench } from './support/cleanup.js';
import { mapPool, within } from './support/concurrency.js';
import { RestartableServer } from './support/dev-server.js';
import { loadAverage, mib, seconds } from './support/system.js';

const options = parseIntOptions('load', process.argv.slice(2), {
  runs: { default: 10_000, min: 10, max: 100_000, help: 'runs to park (N)' },
  concurrency: { default: 50, min: 1, max: 500, help: 'runs started or released at a time' },
  cache: { default: 500, min: 2, max: 100_000, help: "the workers' maxCachedWorkflows" },
  seconds: {
    default: 3600,
    min: 60,
    max: 4 * 3600,
    help: 'time bound; phases stop launching runs at 40%, 75%, 81.25%, 87.5%, 93.75% and 100% of it',
  },
  release: { default: 1, min: 0, max: 1, help: '0: only park (a memory run); no baseline then' },
  baseline: { default: 1, min: 0, max: 1, help: '1: also measure the bare-Temporal baseline' },
  tuned: {
    default: 1,
    min: 0,
    max: 1,
    help: "1: the dev server runs the tuned dynamic config; 0: Temporal's defaults",
  },
  'one-marker': {
    default: 0,
    min: 0,
    max: 1,
    help: "1: runs start with patchMarkers: 'one' (docs/workflow-changes.md)",
  },
  'follow-update': {
    default: 0,
    min: 0,
    max: 1,
    help: "1: the client follows releases with follow: 'update' (docs/streams.md)",
  },
});
const follow = options['follow-update'] === 1 ? 'update' : 'history';

/**
 * Set by the side-by-side bench (bench/compare.ts) to run on its server instead of starting one:
 * `host:port namespace pid`.
 */
const ATTACH = process.env.TOLLGATE_BENCH_SERVER?.split(' ');
/** Starts the line the side-by-side bench (bench/compare.ts) reads the figures from. */
const SUMMARY_PREFIX = 'load-summary-json ';

const TOLLGATE_WORKER = fileURLToPath(new URL('./load/worker-entry.js', import.meta.url));
const BASELINE_WORKER = fileURLToPath(new URL('./baseline/worker-entry.js', import.meta.url));
const STEP_TIMEOUT_MS = 120_000;
const STEP_ATTEMPTS = 8;

interface MemorySample {
  done: number;
  atMs: number;
  rssKiB: number;
  hwmKiB: number;
  heapUsed: number;
  load: string;
}

interface Phase {
  name: string;
  planned: number;
  attempted: number;
  ok: number;
  /** Runs that did not end as expected after every attempt. */
  failed: number;
  /** Runs that needed more than one attempt of a step. */
  retried: number;
  firstError?: string;
  ms: number;
  samples: MemorySample[];
  /** CPU time used during the phase, ms; the server's is NaN if it restarted meanwhile. */
  cpu: { workerMs: number; serverMs: number; clientMs: number };
  serverRestarts: number;
  loadStart: string;
  loadEnd: string;
}

/** Runs of the phase at which the worker's memory is read: the cache size, 1k, 5k, 10k, ... */
function checkpoints(n: number): Set<number> {
  const points = [options.cache, 1000, 2500, 5000, 7500, 10_000, 20_000, 50_000, n];
  return new Set(points.filter((p) => p <= n));
}

async function sampleMemory(
  worker: ChildWorker,
  done: number,
  began: number,
): Promise<MemorySample> {
  const memory = worker.memory();
  const heap = await worker.heap();
  return {
    done,
    atMs: performance.now() - began,
    rssKiB: memory?.rssKiB ?? NaN,
    hwmKiB: memory?.hwmKiB ?? NaN,
    heapUsed: heap?.heapUsed ?? NaN,
    load: loadAverage(),
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 300) : String(error);
}

/**
 * Calls `task` on the ids, `concurrency` at a time, until `deadline`; samples the worker's
 * memory at the checkpoints and reports progress. `task` gets a `step` wrapper that bounds and
 * retries one step of a run.
 */
async function phase(
  name: string,
  ids: number[],
  worker: ChildWorker,
  server: RestartableServer,
  deadline: number,
  task: (id: number, step: <T>(body: () => Promise<T>) => Promise<T>) => Promise<boolean>,
): Promise<Phase> {
  const result: Phase = {
    name,
    planned: ids.length,
    attempted: 0,
    ok: 0,
    failed: 0,
    retried: 0,
    ms: 0,
    samples: [],
    cpu: { workerMs: 0, serverMs: 0, clientMs: 0 },
    serverRestarts: server.restarts.length,
    loadStart: loadAverage(),
    loadEnd: '',
  };
  const points = checkpoints(ids.length);
  const serverPid = server.pid;
  const cpuBefore = {
    worker: processCpuMs(worker.pid) ?? NaN,
    server: processCpuMs(serverPid) ?? NaN,
    client: ownCpuMs(),
  };
  const began = performance.now();
  let lastReport = began;
  progress(`${name}: ${ids.length} runs, ${options.concurrency} at a time`);
  await mapPool(
    ids,
    options.concurrency,
    async (id) => {
      if (Date.now() >= deadline) return;
      result.attempted++;
      let retried = false;
      const step = async <T>(body: () => Promise<T>): Promise<T> => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await within(body(), STEP_TIMEOUT_MS, 'a step');
          } catch (error) {
            result.firstError ??= describe(error);
            if (attempt >= STEP_ATTEMPTS) throw error;
            if (!retried) result.retried++;
            retried = true;
            // 2, 4, 8, 8, ... s: long enough to span the watchdog noticing a stuck server and
            // restarting it.
            await sleep(Math.min(8000, 1000 * 2 ** attempt));
            for (let waited = 0; server.down && waited < 120; waited++) await sleep(1000);
          }
        }
      };
      try {
        if (await task(id, step)) result.ok++;
        else result.failed++;
      } catch (error) {
        result.failed++;
        result.firstError ??= describe(error);
      }
    },
    async (done) => {
      if (points.has(done)) result.samples.push(await sampleMemory(worker, done, began));
      const now = performance.now();
      if (now - lastReport > 15_000) {
        lastReport = now;
        const memory = worker.memory();
        progress(
          `${name}: ${done}/${ids.length} in ${seconds(now - began)} (${((done * 1000) / (now - began)).toFixed(1)}/s), ` +
            `failed ${result.failed}, retried ${result.retried}, worker RSS ${memory ? mib(memory.rssKiB) : '?'}, load ${loadAverage()}`,
        );
      }
    },
  );
  result.ms = performance.now() - began;
  result.cpu = {
    workerMs: (processCpuMs(worker.pid) ?? NaN) - cpuBefore.worker,
    serverMs: server.pid === serverPid ? (processCpuMs(serverPid) ?? NaN) - cpuBefore.server : NaN,
    clientMs: ownCpuMs() - cpuBefore.client,
  };
  result.serverRestarts = server.restarts.length - result.serverRestarts;
  result.loadEnd = loadAverage();
  progress(
    `${name}: ${result.ok} ok, ${result.failed} failed, ${result.retried} retried in ${seconds(result.ms)}`,
  );
  return result;
}

async function startWorker(
  script: string,
  name: string,
  server: RestartableServer,
  taskQueue: string,
) {
  const worker = new ChildWorker({
    name,
    script,
    temporal: { address: server.address, namespace: server.namespace, taskQueue },
    env: { MAX_CACHED_WORKFLOWS: String(options.cache) },
  });
  await worker.whenReady();
  return worker;
}

async function main(): Promise<void> {
  const wallStart = performance.now();
  const began = Date.now();
  const budget = (fraction: number) => began + options.seconds * 1000 * fraction;
  const n = options.runs;
  const ids = Array.from({ length: n }, (_, i) => i);
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-load-'));
  const cliPath = await findTemporalCli();
  onCleanup('removing the temp directory', () => rm(dir, { recursive: true, force: true }));
  const server = ATTACH
    ? RestartableServer.attach({
        address: ATTACH[0]!,
        namespace: ATTACH[1]!,
        pid: Number(ATTACH[2]),
      })
    : await RestartableServer.start(cliPath, join(dir, 'dev-server.db'), options.tuned === 1);
  onCleanup('stopping the dev server', () => server.stop());
  server.watch();
  const suffix = randomUUID().slice(0, 8);
  const phases: Phase[] = [];
  try {
    // --- Tollgate: park N runs, then approve them all.
    const tollgateQueue = `load-tollgate-${suffix}`;
    const tollgateWorker = await startWorker(
      TOLLGATE_WORKER,
      'tollgate worker',
      server,
      tollgateQueue,
    );
    onCleanup('stopping the Tollgate worker', () => tollgateWorker.stop('SIGTERM', 20_000));
    const idle = await sampleMemory(tollgateWorker, 0, performance.now());
    const tollgate = new Tollgate({
      temporal: { address: server.address, namespace: server.namespace, taskQueue: tollgateQueue },
      patchMarkers: options['one-marker'] === 1 ? 'one' : 'each',
      follow,
    });
    onCleanup('shutting the Tollgate client down', () => tollgate.shutdown());
    const agent = tollgate.getAgent(LOAD_AGENT_ID);
    const client = await tollgate.client();
    const runIdOf = (id: number) => `load-${suffix}-${id}`;

    /** After a failed start that went through: wait until the run shows its waiting call. */
    const waitParked = async (runId: string): Promise<'suspended'> => {
      for (const until = Date.now() + STEP_TIMEOUT_MS; Date.now() < until; await sleep(500)) {
        const pending = await agent.pendingToolCalls(runId).catch(() => []);
        if (pending.length > 0) return 'suspended';
      }
      throw new Error(`run ${runId} did not park`);
    };
    const parkedIds: number[] = [];
    const park = await phase(
      'tollgate park',
      ids,
      tollgateWorker,
      server,
      budget(0.4),
      async (id, step) => {
        const reason = await step(async () => {
          try {
            const output = await agent.generate(loadPrompt(`r${id}`), { runId: runIdOf(id) });
            return output.finishReason;
          } catch (error) {
            if (isTollgateError(error, 'INVALID_OPTIONS') && /already exists/.test(error.message))
              return waitParked(runIdOf(id));
            throw error;
          }
        });
        if (reason !== 'suspended') return false;
        parkedIds.push(id);
        return true;
      },
    );
    phases.push(park);
    await sleep(5000);
    const parkedSettled = await sampleMemory(tollgateWorker, parkedIds.length, performance.now());
    parkedIds.sort((a, b) => a - b);
    const release = await phase(
      'tollgate release',
      options.release === 1 ? parkedIds : [],
      tollgateWorker,
      server,
      budget(0.75),
      async (id, step) =>
        step(async () => {
          try {
            const output = await agent.approveToolCallGenerate({ runId: runIdOf(id) });
            return output.finishReason === 'stop' && output.text === 'Done.';
          } catch (error) {
            const decided = ['NO_PENDING_TOOL_CALL', 'TOOL_CALL_ALREADY_DECIDED', 'RUN_FINISHED'];
            if (!isTollgateError(error) || !decided.includes(error.code)) throw error;
            // An earlier attempt's approval went through: the run finishes by itself.
            const result = (await client.workflow.getHandle(runIdOf(id)).result()) as RunResult;
            return result.finishReason === 'stop' && result.text === 'Done.';
          }
        }),
    );
    phases.push(release);
    const tollgateEnd = await sampleMemory(tollgateWorker, release.ok, performance.now());
    await tollgateWorker.stop('SIGTERM', 20_000);

    // --- Baselines: the same N, the same concurrency, the same server: a bare workflow, then one
    // doing the same work as a Tollgate run around its wait.
    const baselineLines: string[] = [];
    const baselineRates: Partial<Record<BaselineKind, { park: number; release: number }>> = {};
    if (options.baseline === 1 && options.release === 1) {
      for (const kind of Object.keys(BASELINES) as BaselineKind[]) {
        const measured = await measureBaseline(kind, {
          ids: parkedIds,
          server,
          suffix,
          budget,
          phases,
        });
        baselineRates[kind] = { park: rate(measured.park), release: rate(measured.release) };
        baselineLines.push(
          '',
          ...phaseLines(measured.park, BASELINES[kind].park),
          ...phaseLines(measured.release, BASELINES[kind].release),
          '',
          `Tollgate throughput as a ratio of the ${BASELINES[kind].name} (runs/s Tollgate ÷ runs/s baseline):`,
          `  park:    ${ratio(park, measured.park)}`,
          `  release: ${ratio(release, measured.release)}`,
        );
      }
    }

    const facts = await environmentFacts(cliPath);
    const heapMiB = getHeapStatistics().heap_size_limit / 2 ** 20;
    const temporalDefault = Math.max(Math.floor((Math.max(heapMiB - 200, 0) * 600) / 1024), 10);
    const stoppedEarly = phases.filter((p) => p.attempted < p.planned);
    const lines = [
      'Tollgate load benchmark',
      ...facts.map((fact) => `environment: ${fact}`),
      `settings: N=${n} runs, concurrency ${options.concurrency}, one worker process per side with maxCachedWorkflows ${options.cache} ` +
        `(Temporal's default here would be ${temporalDefault}, from a ${heapMiB.toFixed(0)} MiB heap limit); ` +
        `patchMarkers: ${options['one-marker'] === 1 ? 'one' : 'each'}, ` +
        `follow: ${follow}`,
      ...stoppedEarly.map(
        (p) =>
          `STOPPED EARLY (--seconds ${options.seconds}): ${p.name} launched ${p.attempted} of ${p.planned} runs; its figures are for those`,
      ),
      `dev server restarts: ${server.restarts.length}` +
        (server.restarts.length > 0
          ? ` (${server.restarts.map((r) => `${r.reason}, down ${seconds(r.downMs)}`).join('; ')})`
          : ''),
      '',
      ...phaseLines(park, 'agent.generate() until it suspends on the gated tool'),
      `  Tollgate worker memory: idle ${memoryText(idle)}; ${parkedIds.length} parked and settled (5 s) ${memoryText(parkedSettled)}`,
      ...(options.release === 1
        ? [
            ...phaseLines(release, 'agent.approveToolCallGenerate() until the run finishes'),
            `  Tollgate worker memory after all released: ${memoryText(tollgateEnd)}`,
          ]
        : ['(--release 0: the runs were left parked; no release and no baseline measured)']),
      ...baselineLines,
      '',
      `wall time: ${seconds(performance.now() - wallStart)}`,
    ];
    console.log(lines.join('\n'));
    const summary = {
      parked: parkedIds.length,
      idleRssKiB: idle.rssKiB,
      parkedRssKiB: parkedSettled.rssKiB,
      parkedHwmKiB: parkedSettled.hwmKiB,
      park: rate(park),
      release: options.release === 1 ? rate(release) : null,
      baseline: baselineRates.bare ?? null,
      sameWork: baselineRates['same-work'] ?? null,
      failed: phases.reduce((sum, p) => sum + p.failed, 0),
    };
    console.log(SUMMARY_PREFIX + JSON.stringify(summary));
  } finally {
    progress('shutting down');
    await cleanUp();
  }
}

/** Each baseline: its workflow, what its phases do, and its share of the time bound. */
const BASELINES = {
  bare: {
    name: 'bare baseline',
    workflow: parkedRun,
    park: 'start the workflow + update `parked` (answered once it waits on the signal)',
    release: 'signal `release` + wait for the result (one activity)',
    budgets: [0.8125, 0.875],
  },
  'same-work': {
    name: 'same-work baseline',
    workflow: parkedRunAnswered,
    park: 'start the workflow + update `parked` (answered once it waits, after its model step)',
    release: 'signal `release` + wait for the result (marked tool, then the answering model step)',
    budgets: [0.9375, 1],
  },
} as const;
type BaselineKind = keyof typeof BASELINES;

/** Parks and releases the runs Tollgate parked, as `kind`'s bare Temporal workflow. */
async function measureBaseline(
  kind: BaselineKind,
  context: {
    ids: number[];
    server: RestartableServer;
    suffix: string;
    /** The deadline at a fraction of the time bound. */
    budget: (fraction: number) => number;
    /** Where the phases are recorded. */
    phases: Phase[];
  },
): Promise<{ park: Phase; release: Phase }> {
  const { ids, server, suffix, budget, phases } = context;
  const spec = BASELINES[kind];
  const queue = `load-${kind}-${suffix}`;
  const worker = await startWorker(BASELINE_WORKER, `${spec.name} worker`, server, queue);
  onCleanup(`stopping the ${spec.name} worker`, () => worker.stop('SIGTERM', 20_000));
  const connection = await Connection.connect({ address: server.address });
  onCleanup(`closing the ${spec.name} client`, () => connection.close());
  const client = new Client({ connection, namespace: server.namespace });
  const workflowIdOf = (id: number) => `${kind}-${suffix}-${id}`;
  const parked: number[] = [];
  const park = await phase(
    `${spec.name} park`,
    ids,
    worker,
    server,
    budget(spec.budgets[0]),
    async (id, step) => {
      const answer = await step(async () => {
        try {
          await client.workflow.start(spec.workflow, {
            workflowId: workflowIdOf(id),
            taskQueue: queue,
            args: [`r${id}`],
          });
        } catch (error) {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        }
        return client.workflow.getHandle(workflowIdOf(id)).executeUpdate(parkedUpdate);
      });
      if (answer !== true) return false;
      parked.push(id);
      return true;
    },
  );
  phases.push(park);
  const release = await phase(
    `${spec.name} release`,
    parked.sort((a, b) => a - b),
    worker,
    server,
    budget(spec.budgets[1]),
    async (id, step) =>
      step(async () => {
        const handle = client.workflow.getHandle(workflowIdOf(id));
        await handle.signal(releaseSignal);
        return (await handle.result()) === `done r${id}`;
      }),
  );
  phases.push(release);
  await worker.stop('SIGTERM', 20_000);
  await connection.close();
  return { park, release };
}

function memoryText(sample: MemorySample): string {
  const heap = Number.isFinite(sample.heapUsed) ? `, heap used ${mib(sample.heapUsed / 1024)}` : '';
  return `RSS ${mib(sample.rssKiB)} (peak ${mib(sample.hwmKiB)}${heap})`;
}

function rate(p: Phase): number {
  return (p.ok * 1000) / p.ms;
}

function phaseLines(p: Phase, how: string): string[] {
  const perRun = (ms: number) =>
    Number.isFinite(ms)
      ? `${(ms / Math.max(1, p.ok)).toFixed(2)} ms`
      : 'unknown (server restarted)';
  return [
    `${p.name} (${how}): ${p.ok} runs in ${seconds(p.ms)} = ${rate(p).toFixed(1)} runs/s; ` +
      `failed ${p.failed}, retried ${p.retried}${p.firstError ? ` (first error: ${p.firstError})` : ''}` +
      `${p.serverRestarts > 0 ? `; the dev server restarted ${p.serverRestarts} time(s) meanwhile` : ''}; ` +
      `load ${p.loadStart} -> ${p.loadEnd}`,
    `  CPU per run: worker ${perRun(p.cpu.workerMs)}, dev server ${perRun(p.cpu.serverMs)}, this client process ${perRun(p.cpu.clientMs)}`,
    ...(p.samples.length > 0
      ? [
          `  worker memory at: ` +
            p.samples
              .map(
                (s) =>
                  `${s.done} -> ${memoryText(s)} [t ${seconds(s.atMs)}, load ${s.load.split(' ')[0]}]`,
              )
              .join('; '),
        ]
      : []),
  ];
}

function ratio(tollgate: Phase, baseline: Phase): string {
  const r = rate(tollgate) / rate(baseline);
  return `${r.toFixed(2)} (Tollgate ${rate(tollgate).toFixed(1)} runs/s, baseline ${rate(baseline).toFixed(1)} runs/s; per run ${(1000 / rate(tollgate)).toFixed(1)} ms vs ${(1000 / rate(baseline)).toFixed(1)} ms of wall time at concurrency ${options.concurrency})`;
}

runBench(main);
