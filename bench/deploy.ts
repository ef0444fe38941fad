/**
 * Rolling-deploy benchmark (on demand, not a test; issue 26 item 5): parks runs on release A of a
 * Temporal Worker Deployment, rolls to release B (the `ops` tool's code changed, `newcomer` added,
 * `legacy` removed) while both releases poll and approvals arrive throughout, waits until every
 * run ends, stops A and retires it. Both releases and the operator's client are Tollgate
 * instances in this process, on the bench's own dev server.
 *
 *   npm run bench:deploy -- [--runs 200] [--versioning pinned|auto-upgrade] [--skip-retire]
 *
 * Stages of the roll, each at least `--stage-seconds` long, each with a quarter of the parked
 * runs' approvals: B starts (A current) → B ramps to 50 % (new `ops` runs) → B is current (new
 * `ops` and `newcomer` runs) → moves (the last wave's parked `ops` runs to B) → A drains.
 *
 * Exit code 0 when no run was lost, no effect ran twice, no run failed for a reason the docs do
 * not give and every completed run's effect ran; 1 otherwise (or on a harness error).
 */
import './quiet-runtime.js';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findTemporalCli, Tollgate } from '../src/index.js';
import type { Versioning } from '../src/worker-settings.js';
import type { DeploymentReport } from '../src/temporal-client/deployments.js';
import { environmentFacts } from './environment.js';
import {
  BUILD_IDS,
  EffectJournal,
  releaseAgents,
  type AgentId,
  type Release,
} from './deploy/agents.js';
import {
  deployFindings,
  deployLines,
  slowest,
  SLOWEST_RUNS,
  type RollTimes,
  type Snapshot,
} from './deploy/report.js';
import {
  approve,
  diagnose,
  followToEnd,
  longestWait,
  Refusals,
  startParked,
  type Cohort,
  type DeployRun,
} from './deploy/runs.js';
import { progress } from './stats.js';
import { parseOptions } from './support/args.js';
import { cleanUp, onCleanup, runBench } from './support/cleanup.js';
import { mapPool } from './support/concurrency.js';
import { RestartableServer } from './support/dev-server.js';
import { loadAverage, seconds } from './support/system.js';

const options = parseOptions('deploy', process.argv.slice(2), {
  runs: {
    default: 200,
    min: 4,
    max: 5000,
    help: 'runs parked on release A (half ops, half legacy)',
  },
  versioning: {
    choices: ['pinned', 'auto-upgrade'] as Versioning[],
    default: 'pinned' as Versioning,
    help: "both releases' worker.versioning",
  },
  'skip-retire': { flag: true, help: 'stop A but do not retire it (saves the ~5 min wait)' },
  concurrency: { default: 10, min: 1, max: 200, help: 'runs started or approved at a time' },
  'stage-seconds': { default: 5, min: 0, max: 600, help: 'least time spent in each stage' },
  'drain-seconds': {
    default: 300,
    min: 10,
    max: 3600,
    help: 'how long runs may take to end after the last approval before they count as lost',
  },
});

/** Temporal forgets a stopped worker about 5 minutes after it stops; retire waits up to this. */
const RETIRE_WAIT_MS = 7 * 60_000;
const RAMP_PERCENT = 50;

interface Bench {
  name: string;
  operator: Tollgate;
  releases: Partial<Record<Release, Tollgate>>;
  runs: DeployRun[];
  refusals: Refusals;
  /** Watchers of every started run's end. */
  ends: Promise<void>[];
  snapshots: Snapshot[];
  began: number;
}

async function main(): Promise<number> {
  const loadAtStart = loadAverage();
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-deploy-'));
  onCleanup('removing the temp directory', () => rm(dir, { recursive: true, force: true }));
  const cliPath = await findTemporalCli();
  const server = await RestartableServer.start(cliPath, join(dir, 'dev-server.db'));
  onCleanup('stopping the dev server', () => server.stop());
  server.watch();
  const suffix = randomUUID().slice(0, 8);
  const temporal = {
    address: server.address,
    namespace: server.namespace,
    taskQueue: `deploy-${suffix}`,
  };
  const journal = new EffectJournal();
  const operator = new Tollgate({ temporal });
  onCleanup('shutting the operator client down', () => operator.shutdown());
  const bench: Bench = {
    name: `bench-deploy-${suffix}`,
    operator,
    releases: {},
    runs: [],
    refusals: new Refusals(),
    ends: [],
    snapshots: [],
    began: Date.now(),
  };
  const startRelease = async (release: Release) => {
    const tollgate = new Tollgate({
      agents: releaseAgents(release, journal),
      temporal,
      worker: {
        deployment: { name: bench.name, buildId: BUILD_IDS[release] },
        versioning: options.versioning,
      },
    });
    bench.releases[release] = tollgate;
    onCleanup(`stopping release ${release}`, () => tollgate.shutdown());
    const started = Date.now();
    await tollgate.startWorker();
    return Date.now() - started;
  };
  try {
    progress(`dev server ${server.address}; starting release A (${options.versioning})`);
    await startRelease('A');
    const parked = plan(bench, options.runs, 'parked before the roll', (i) =>
      i % 2 === 0 ? 'ops' : 'legacy',
    );
    const parkStarted = Date.now();
    await startRuns(bench, parked, 'parking');
    const parkMs = Date.now() - parkStarted;
    await snapshot(bench, 'parked on A');
    // Pairs of runs (one ops, one legacy) go round the four waves: every wave has both agents.
    const waves = [0, 1, 2, 3].map((k) =>
      parked.filter((run, i) => run.parked && Math.floor(i / 2) % 4 === k),
    );
    const newRuns = Math.max(1, Math.round(options.runs / 10));

    // --- The roll: from B's start until every run has ended.
    const times: Partial<RollTimes> = { parkMs };
    const rollStart = Date.now();
    await stage(bench, 'B starts, A current', async (name) => {
      const [startMs] = await Promise.all([startRelease('B'), approveAll(bench, waves[0]!, name)]);
      times.bStartMs = startMs;
    });
    await stage(bench, `B ramping ${RAMP_PERCENT} %`, async (name) => {
      await switchBuild(bench, waves, name, () =>
        operator.deployments.ramp(bench.name, BUILD_IDS.B, RAMP_PERCENT),
      );
      const fresh = plan(bench, newRuns, 'started while B ramps', () => 'ops');
      await Promise.all([approveAll(bench, waves[1]!, name), startAndApprove(bench, fresh, name)]);
    });
    await stage(bench, 'B current', async (name) => {
      await switchBuild(bench, waves, name, () =>
        operator.deployments.setCurrent(bench.name, BUILD_IDS.B),
      );
      const fresh = plan(bench, 2 * newRuns, 'started once B is current', (i) =>
        i % 2 === 0 ? 'ops' : 'newcomer',
      );
      await Promise.all([approveAll(bench, waves[2]!, name), startAndApprove(bench, fresh, name)]);
    });
    const moves = await stage(bench, 'moves', () => moveParkedRuns(bench, waves[3]!));
    await stage(bench, 'A draining', (name) => approveAll(bench, waves[3]!, name));
    progress(
      `every approval sent; waiting up to ${options['drain-seconds']} s for the runs to end`,
    );
    await Promise.race([Promise.all(bench.ends), sleep(options['drain-seconds'] * 1000)]);
    times.rollMs = Date.now() - rollStart;
    const open = bench.runs.filter((run) => !run.end);
    await snapshot(bench, open.length === 0 ? 'every run ended' : 'drain ran out');
    const client = await operator.client();
    await Promise.all(open.slice(0, 10).map((run) => diagnose(run, client)));
    await Promise.all(slowest(bench.runs, SLOWEST_RUNS).map((run) => longestWait(run, client)));

    // --- After the roll: stop A, then retire it.
    const stopStarted = Date.now();
    await bench.releases.A!.shutdown();
    times.stopAMs = Date.now() - stopStarted;
    await snapshot(bench, 'A stopped');
    const retire = options['skip-retire'] ? undefined : await retireA(bench);
    if (retire) await snapshot(bench, 'A retired');

    const findings = deployFindings(bench.runs, journal.effects);
    const lines = deployLines({
      facts: await environmentFacts(cliPath),
      settings:
        `--runs ${options.runs} --versioning ${options.versioning}${options['skip-retire'] ? ' --skip-retire' : ''} ` +
        `--concurrency ${options.concurrency} --stage-seconds ${options['stage-seconds']} --drain-seconds ${options['drain-seconds']}`,
      dynamicConfig: server.server.dynamicConfig,
      serverRestarts: server.restarts.length,
      load: { start: loadAtStart, end: loadAverage() },
      findings,
      refusals: bench.refusals,
      snapshots: bench.snapshots,
      times: times as RollTimes,
      moves,
      retire,
      began: bench.began,
    });
    console.log(lines.join('\n'));
    return findings.failed ? 1 : 0;
  } finally {
    progress('shutting down');
    await cleanUp();
  }
}

/** Adds `count` runs of the cohort to the bench; `agentOf` picks each run's agent. */
function plan(
  bench: Bench,
  count: number,
  cohort: Cohort,
  agentOf: (index: number) => AgentId,
): DeployRun[] {
  const first = bench.runs.length;
  const runs = Array.from({ length: count }, (_, i): DeployRun => {
    const tag = `r${String(first + i).padStart(4, '0')}`;
    return {
      runId: `deploy-${tag}-${randomUUID().slice(0, 6)}`,
      tag,
      agentId: agentOf(i),
      cohort,
      parked: false,
    };
  });
  bench.runs.push(...runs);
  return runs;
}

async function startRuns(bench: Bench, runs: DeployRun[], what: string): Promise<void> {
  const client = await bench.operator.client();
  await mapPool(
    runs,
    options.concurrency,
    async (run) => {
      await startParked(run, bench.operator.getAgent(run.agentId));
      // A run whose start failed may still exist: it is followed too, and counted if it never ends.
      bench.ends.push(followToEnd(run, client));
    },
    (done) => {
      if (done % 50 === 0) progress(`${what}: ${done}/${runs.length}`);
    },
  );
}

/**
 * A routing change of the roll. With auto-upgrade, the `legacy` runs still parked follow the
 * current build, which B would strand (B lacks the agent): the change is refused with
 * `BUILD_LACKS_AGENT`, as an operator would see it. The bench then does what the refusal says:
 * approves those runs first (they end on A), and makes the change once they have ended.
 */
async function switchBuild(
  bench: Bench,
  waves: DeployRun[][],
  stageName: string,
  change: () => Promise<void>,
): Promise<void> {
  try {
    await change();
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== 'BUILD_LACKS_AGENT') throw error;
    bench.refusals.add(stageName, 'BUILD_LACKS_AGENT');
    progress(`${stageName}: refused, ${(error as Error).message}`);
  }
  const stranded = waves.flat().filter((run) => run.agentId === 'legacy' && !run.approvedIn);
  await approveAll(bench, stranded, `${stageName} (before the switch)`);
  for (const until = Date.now() + 120_000; ; await sleep(2000)) {
    try {
      await change();
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'BUILD_LACKS_AGENT' || Date.now() > until) {
        throw error;
      }
    }
  }
}

function approveAll(bench: Bench, runs: DeployRun[], stageName: string): Promise<unknown> {
  // A run approved early (before a refused switch) is not approved twice.
  const pending = runs.filter((run) => !run.approvedIn);
  return mapPool(pending, options.concurrency, (run) =>
    approve(run, bench.operator.getAgent(run.agentId), stageName, bench.refusals),
  );
}

async function startAndApprove(bench: Bench, runs: DeployRun[], stageName: string) {
  await startRuns(bench, runs, `starting (${stageName})`);
  await approveAll(
    bench,
    runs.filter((run) => run.parked),
    stageName,
  );
}

/** Runs `body` as a stage of the roll lasting at least `--stage-seconds`, then snapshots. */
async function stage<T>(
  bench: Bench,
  name: string,
  body: (name: string) => Promise<T>,
): Promise<T> {
  const started = Date.now();
  progress(`stage: ${name}`);
  const result = await body(name);
  await sleep(Math.max(0, started + options['stage-seconds'] * 1000 - Date.now()));
  await snapshot(bench, name);
  return result;
}

/** The deployment as `tollgate.deployments.report()` sees it now. */
async function snapshot(bench: Bench, after: string): Promise<void> {
  let report: DeploymentReport | undefined;
  let error: string | undefined;
  try {
    [report] = await bench.operator.deployments.report(bench.name);
  } catch (caught) {
    error = String(caught);
  }
  const ended = bench.runs.filter((run) => run.end).length;
  bench.snapshots.push({ after, atMs: Date.now() - bench.began, ended, report, error });
  progress(`${after}: ${ended}/${bench.runs.length} runs ended; load ${loadAverage()}`);
}

/**
 * The moves: the runs of the last wave whose agent B hosts (`ops`), still parked on A, move to
 * the current build, B (`tollgate.deployments.move`), so their approved tool runs B's code and A
 * drains sooner. `legacy` runs stay on A (B lacks the agent; a move of one is refused with
 * `RUN_NOT_MOVABLE`, which one of them is sent to show). Refusals are counted by code.
 */
async function moveParkedRuns(
  bench: Bench,
  lastWave: DeployRun[],
): Promise<{ moved: number; note: string }> {
  const movable = lastWave.filter((run) => run.agentId === 'ops');
  const stays = lastWave.find((run) => run.agentId === 'legacy');
  const refused = new Map<string, number>();
  let moved = 0;
  const moveOne = async (run: DeployRun) => {
    try {
      await bench.operator.deployments.move(run.runId, {
        reason: 'bench:deploy roll',
        identity: 'bench',
      });
      moved++;
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'ERROR';
      refused.set(code, (refused.get(code) ?? 0) + 1);
    }
  };
  // A few at a time: each move replays its run on a worker of B.
  for (let i = 0; i < movable.length; i += 5) {
    await Promise.all(movable.slice(i, i + 5).map(moveOne));
  }
  const legacyRefusal = stays
    ? await bench.operator.deployments.move(stays.runId, { identity: 'bench' }).then(
        () => 'moved (unexpected)',
        (error: { code?: string }) => error.code ?? 'ERROR',
      )
    : 'none';
  const codes = [...refused].map(([code, count]) => `${code} ${count}`).join(', ') || 'none';
  return {
    moved,
    note: `of ${movable.length} parked ops runs of the last wave; refused: ${codes}; a legacy run's move: ${legacyRefusal}`,
  };
}

/**
 * Retires A once no run is pinned to it, waiting for Temporal to forget A's stopped workers.
 * The time is measured from the call, after A stopped.
 */
async function retireA(bench: Bench): Promise<RollTimes['retire']> {
  const deployments = bench.operator.deployments;
  const started = Date.now();
  // Visibility counts A's pinned runs; it may lag the runs' ends a little.
  for (const until = Date.now() + 60_000; Date.now() < until; await sleep(2000)) {
    const [report] = await deployments.report(bench.name).catch(() => []);
    const a = report?.versions.find((version) => version.buildId === BUILD_IDS.A);
    if (!a || a.retirable) break;
  }
  const pinnedWaitMs = Date.now() - started;
  progress(
    `retiring A (waits up to ${seconds(RETIRE_WAIT_MS)} for Temporal to forget its workers)`,
  );
  try {
    await deployments.retire(bench.name, BUILD_IDS.A, { waitMs: RETIRE_WAIT_MS });
    return { ok: true, pinnedWaitMs, waitMs: Date.now() - started - pinnedWaitMs };
  } catch (error) {
    return {
      ok: false,
      pinnedWaitMs,
      waitMs: Date.now() - started - pinnedWaitMs,
      error: String(error),
    };
  }
}

runBench(main);
