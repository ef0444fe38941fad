/**
 * Fault benchmark (on demand, not a test): starts agent runs on its own Temporal dev server and
 * two worker child processes, then breaks things while they run — SIGKILLs a random worker at
 * random moments (during model turns, tool executions and waits) and respawns it, restarts the
 * Temporal server, and races duplicate and conflicting decisions on the same gated call over the
 * Tollgate client (update), a raw Temporal signal and the HTTP API. At the end it waits (bounded)
 * for every run to close and checks that no run was lost, no effect ran twice, and every gated
 * call was decided exactly once, as its callers were told.
 *
 *   npm run build && node dist/bench/faults.js [--runs 40] [--seconds 240] [--restarts 2]
 *
 * Exit code 0: no run lost, no duplicate effect, no violation; 1 otherwise (or on a harness error).
 */
import './quiet-runtime.js';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findTemporalCli, Tollgate, type AuditEntry } from '../src/index.js';
import { createTollgateServer } from '../src/server/index.js';
import { TollgateClient } from '../src/http-client/index.js';
import { environmentFacts } from './environment.js';
import { analyse, chaosLines, describeError, historyExcerpt } from './faults/analysis.js';
import { FAULT_AGENT_ID, RUN_KINDS, type RunKind } from './faults/agent.js';
import { FaultCluster } from './faults/cluster.js';
import { replayAll } from './faults/replay.js';
import {
  HTTP_IDENTITIES,
  resolveFromAudit,
  SCENARIOS,
  type Deciders,
  type HttpIdentity,
} from './faults/decisions.js';
import { readJournal } from './faults/journal.js';
import { followStream, lifeOfRun, type PlannedRun, type RunContext } from './faults/runs.js';
import { progress } from './stats.js';
import { parseIntOptions } from './support/args.js';
import { cleanUp, onCleanup, runBench } from './support/cleanup.js';
import { retrying, seededRandom, within } from './support/concurrency.js';
import { loadAverage, seconds } from './support/system.js';

const options = parseIntOptions('faults', process.argv.slice(2), {
  runs: { default: 40, min: 1, max: 500, help: 'runs to start' },
  seconds: {
    default: 240,
    min: 60,
    max: 3600,
    help: 'time bound: faults in the first half, then every run must close before it ends',
  },
  restarts: { default: 2, min: 0, max: 5, help: 'Temporal server restarts during the faults' },
  'kill-every': { default: 6, min: 1, max: 120, help: 'mean seconds between worker kills' },
  workers: { default: 2, min: 1, max: 4, help: 'worker child processes' },
  seed: { default: 0, min: 0, max: 2 ** 31, help: 'random seed; 0 picks one' },
});

const KIND_MIX: RunKind[] = ['gated', 'gated', 'gated', 'stream', 'slow', 'combo', 'combo'];

function planRuns(count: number, windowMs: number, random: () => number, prefix: string) {
  return Array.from({ length: count }, (_, index): PlannedRun => {
    // Every kind at least once, then the mix.
    const kind =
      index < RUN_KINDS.length
        ? RUN_KINDS[index]!
        : KIND_MIX[Math.floor(random() * KIND_MIX.length)]!;
    const tag = `${prefix}-${String(index).padStart(3, '0')}`;
    return {
      index,
      runId: `fault-${tag}`,
      tag,
      kind,
      via: random() < 0.25 ? 'http' : 'client',
      startAfterMs: Math.round(((index + random()) / count) * windowMs),
      ...(kind === 'gated' || kind === 'combo'
        ? { scenario: SCENARIOS[Math.floor(random() * SCENARIOS.length)]! }
        : {}),
      decideAfterMs: Math.round(random() * 12_000),
      phase: 'planned',
      started: false,
      startAttempts: 0,
      attempts: [],
      problems: [],
    };
  });
}

async function main(): Promise<number> {
  const wallStart = performance.now();
  const seed = options.seed || Math.floor(Math.random() * 2 ** 31);
  const random = seededRandom(seed);
  const loadAtStart = loadAverage();
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-faults-'));
  const cliPath = await findTemporalCli();
  const cluster = new FaultCluster(dir, `faults-${randomUUID().slice(0, 8)}`, cliPath);
  let keepDir = false;
  onCleanup('removing the temp directory', async () => {
    if (!keepDir) await rm(dir, { recursive: true, force: true });
  });
  onCleanup('stopping the workers and the server', () => cluster.close());
  try {
    progress(
      `seed ${seed}; starting a dev server and ${options.workers} worker processes in ${dir}`,
    );
    await cluster.start(options.workers);
    const tollgate = new Tollgate({
      temporal: {
        address: cluster.server.address,
        namespace: cluster.server.namespace,
        taskQueue: cluster.taskQueue,
      },
    });
    onCleanup('shutting the Tollgate client down', () => tollgate.shutdown());
    const httpErrors: string[] = [];
    const tokens = HTTP_IDENTITIES.map((id) => ({
      token: `token-${id}-${seed}`,
      id,
      roles: ['ops'],
    }));
    const http = await createTollgateServer({
      tollgate,
      auth: { tokens },
      logError: (error, where) => httpErrors.push(`${where}: ${describeError(error)}`),
    }).listen({ port: 0 });
    onCleanup('closing the HTTP server', () => http.close());
    const remotes = Object.fromEntries(
      tokens.map(({ id, token }) => [
        id,
        new TollgateClient({ baseUrl: http.url, token }).getAgent(FAULT_AGENT_ID),
      ]),
    ) as Record<HttpIdentity, ReturnType<TollgateClient['getAgent']>>;
    const agent = tollgate.getAgent(FAULT_AGENT_ID);
    const client = () => tollgate.client();

    const totalMs = options.seconds * 1000;
    const began = Date.now();
    const chaosEnd = began + totalMs / 2;
    const deadline = began + totalMs;
    const runs = planRuns(options.runs, (totalMs / 2) * 0.7, random, seed.toString(36));
    const deciders: Deciders = {
      agent,
      client,
      http: remotes,
      follow: (stream, abort) => followStream(stream as never, context, abort),
    };
    const context: RunContext = {
      agent,
      remote: remotes.alice,
      client,
      deciders,
      random,
      began,
      chaosEnd,
      deadline,
      streams: { ended: 0, broke: 0, brokeBy: new Map(), samples: [] },
    };
    let maxLoad = Number(loadAtStart.split(' ')[0]);
    const loadTimer = setInterval(
      () => (maxLoad = Math.max(maxLoad, Number(loadAverage().split(' ')[0]))),
      5000,
    );
    progress(
      `${runs.length} runs over ${seconds((totalMs / 2) * 0.7)}; faults until ${seconds(totalMs / 2)}; everything closed by ${seconds(totalMs)}`,
    );
    const parked = () => runs.filter((run) => run.phase === 'parked').length;
    const lives = runs.map((run) =>
      lifeOfRun(run, context).catch((error: unknown) => {
        run.problems.push(`harness error: ${String(error)}`);
      }),
    );
    const status = setInterval(() => {
      const phases = new Map<string, number>();
      for (const run of runs) phases.set(run.phase, (phases.get(run.phase) ?? 0) + 1);
      progress(
        `t+${seconds(Date.now() - began)}: ${[...phases].map(([p, n]) => `${p} ${n}`).join(', ')}; ` +
          `kills ${cluster.kills.length}, restarts ${cluster.restarts.length}; load ${loadAverage()}`,
      );
    }, 15_000);
    await Promise.all([
      killLoop(cluster, chaosEnd, random, parked),
      restartLoop(cluster, began, chaosEnd, options.restarts),
      within(Promise.all(lives), totalMs + 60_000, 'every run task'),
    ]);
    clearInterval(status);
    clearInterval(loadTimer);
    const closedAt = Math.max(began, ...runs.map((run) => run.closedAt ?? 0));
    progress(`every run task is done after ${seconds(Date.now() - began)}; reading audit trails`);

    await cluster.ensureWorkers(60_000);
    const audits = new Map<string, AuditEntry[]>();
    for (const run of runs.filter((r) => r.attempts.length > 0)) {
      const entries = await retrying(
        () => within(agent.getAuditTrail(run.runId), 15_000, 'audit'),
        {
          deadline: Date.now() + 30_000,
          pauseMs: 1000,
        },
      ).catch(() => undefined);
      if (!entries) {
        run.problems.push('its audit trail could not be read');
        continue;
      }
      audits.set(run.runId, entries);
      resolveFromAudit(run.attempts, entries);
    }
    const findings = analyse(runs, readJournal(cluster.journalFile), audits);
    progress('replaying every closed run against the workflow code');
    const closedRuns = runs.filter((run) => run.status !== undefined).map((run) => run.runId);
    const replay = await replayAll(await client(), closedRuns);
    for (const failure of replay.failures) {
      findings.violations.push(`${failure.runId}: its history does not replay: ${failure.error}`);
      findings.suspects.add(failure.runId);
    }
    const facts = await environmentFacts(cliPath);
    const wallMs = performance.now() - wallStart;

    const lines = [
      'Tollgate fault benchmark',
      ...facts.map((fact) => `environment: ${fact}`),
      `settings: --runs ${options.runs} --seconds ${options.seconds} --restarts ${options.restarts} ` +
        `--kill-every ${options['kill-every']} --workers ${options.workers} --seed ${seed}`,
      `load average (1/5/15 min): ${loadAtStart} at start, ${loadAverage()} at the end, highest 1-min ${maxLoad.toFixed(2)}`,
      '',
      ...findings.lines,
      `histories replayed against the workflow code: ${replay.replayed}, nondeterministic ${replay.failures.length}` +
        replay.failures.map((f) => `\n    ${f.runId}: ${f.error}`).join(''),
      ...chaosLines(cluster),
      `client streams followed: ${context.streams.ended} ended normally, ${context.streams.broke} broke` +
        (context.streams.broke > 0
          ? ` (${[...context.streams.brokeBy].map(([k, n]) => `${k} ${n}`).join(', ')}; the runs went on)`
          : '') +
        context.streams.samples.map((sample) => `\n    ${sample}`).join(''),
      `HTTP server internal errors (answered 500, e.g. Temporal unreachable): ${httpErrors.length}` +
        httpErrors
          .slice(0, 5)
          .map((line) => `\n    ${line}`)
          .join(''),
      `run starts that needed a retry: ${runs.filter((r) => r.startAttempts > 1).length}`,
      `wall time: ${seconds(wallMs)} (the last run closed ${seconds(closedAt - began)} after the faults began)`,
      '',
      `RESULT: started ${findings.started}, completed ${findings.completed}, lost ${findings.lost.length}, ` +
        `effects executed twice ${findings.duplicateLogical.length}, ` +
        `histories that do not replay ${replay.failures.length}, violations ${findings.violations.length}` +
        (findings.notStarted.length > 0 ? `, never started ${findings.notStarted.length}` : ''),
    ];
    const problems = runs.filter((run) => run.problems.length > 0);
    if (problems.length > 0) {
      lines.push('', 'run problems:');
      for (const run of problems)
        lines.push(`  ${run.runId} (${run.kind}): ${run.problems.join('; ')}`);
    }
    if (findings.violations.length > 0) {
      lines.push('', 'violations:', ...findings.violations.map((v) => `  ${v}`));
    }
    for (const run of findings.lost)
      lines.push(`lost: ${run.runId} (${run.kind}), last phase ${run.phase}`);
    const suspects = [...findings.suspects]
      .filter((id) => runs.some((r) => r.runId === id))
      .slice(0, 5);
    for (const runId of suspects) {
      lines.push(
        `history of ${runId} (last events):`,
        ...(await historyExcerpt(await client(), runId)),
      );
    }
    console.log(lines.join('\n'));

    const failed =
      findings.lost.length > 0 ||
      findings.duplicateLogical.length > 0 ||
      findings.violations.length > 0 ||
      findings.notStarted.length > 0;
    keepDir = failed;
    if (failed) progress(`kept the journal and the server's SQLite file in ${dir}`);
    return failed ? 1 : 0;
  } finally {
    progress('shutting down');
    await cleanUp();
  }
}

/** SIGKILLs a ready worker every `kill-every` seconds (±50%), aiming in turn at model turns, tools and anything. */
async function killLoop(
  cluster: FaultCluster,
  until: number,
  random: () => number,
  parked: () => number,
): Promise<void> {
  const aims = ['model', 'tool', 'any'] as const;
  for (let k = 0; Date.now() < until - 2000 && k < 10_000; k++) {
    await sleep(options['kill-every'] * 1000 * (0.5 + random()));
    if (Date.now() >= until - 2000) return;
    const aim = aims[k % aims.length]!;
    let slot: number | undefined;
    for (const waitUntil = Date.now() + 3000; Date.now() < waitUntil; await sleep(100)) {
      const inFlight = cluster.inFlightBySlot();
      const candidates = cluster.workers
        .map((worker, index) => ({ worker, index }))
        .filter(({ worker, index }) => {
          const work = inFlight[index]!;
          return (
            worker.isReady &&
            (aim === 'any' || (aim === 'model' ? work.models.length > 0 : work.tools.length > 0))
          );
        });
      if (candidates.length > 0) {
        slot = candidates[Math.floor(random() * candidates.length)]!.index;
        break;
      }
    }
    if (slot === undefined) {
      const ready = cluster.workers.map((w, i) => ({ w, i })).filter(({ w }) => w.isReady);
      if (ready.length === 0) continue;
      slot = ready[Math.floor(random() * ready.length)]!.i;
    }
    const kill = await cluster.kill(slot, parked());
    progress(
      `killed ${kill.worker} (pid ${kill.pid}) aiming at ${aim}: models [${kill.inFlight.models.join(' ')}] tools [${kill.inFlight.tools.join(' ')}], ${kill.parkedRuns} runs parked`,
    );
  }
}

/** Restarts the server `count` times, evenly through the fault window. */
async function restartLoop(cluster: FaultCluster, began: number, until: number, count: number) {
  for (let i = 1; i <= count; i++) {
    await sleep(Math.max(0, began + ((until - began) * i) / (count + 1) - Date.now()));
    progress(`restarting the Temporal server (${i} of ${count})`);
    await cluster.restartServer();
    progress(`the Temporal server is back after ${seconds(cluster.restarts.at(-1)!.downMs)}`);
  }
}

runBench(main);
