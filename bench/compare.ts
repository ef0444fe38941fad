/**
 * The side-by-side benchmark: in one run, on one Temporal server, Tollgate next to the floor (bare
 * Temporal doing the same shapes) and next to the peer (Mastra in-process with LibSQL storage,
 * the same scripted agent). Prints every figure with its ratio to the floor and to the peer, the
 * server's dynamic config and the machine's load.
 *
 *   npm run bench:compare -- [--parked 10000] [--defaults 1] [--peer 0] [--address host:port]
 *
 * `--defaults 1` repeats the Temporal-side figures on a second dev server with Temporal's own
 * dynamic config; `--address` measures a running server instead (e.g. the PostgreSQL topology).
 */
import './quiet-runtime.js';
import { execFileSync, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { approvalAgent, approvalRunner, type ApprovalSample } from './approval-latency.js';
import { compareTable, type SideFigures, type PeerFigures } from './compare-report.js';
import { environmentFacts, startEnvironment, type ServerChoice } from './environment.js';
import { measureFloor } from './floor.js';
import { measureHttpApprove } from './http-approve-latency.js';
import { installPeer } from './peer/install.js';
import { startMastraPeer } from './peer/mastra.js';
import {
  LOCAL_PER_STEP_AGENT_ID,
  localPerStepAgent,
  measureInProcess,
  perStepAgent,
  tollgateRunner,
} from './per-step.js';
import { median, progress, timed } from './stats.js';
import { parseIntOptions } from './support/args.js';

const argv = process.argv.slice(2);
const addressAt = argv.findIndex((arg) => arg === '--address');
const external =
  addressAt >= 0
    ? { address: argv[addressAt + 1] ?? '', namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' }
    : undefined;
if (addressAt >= 0) argv.splice(addressAt, 2);
const options = parseIntOptions('compare', argv, {
  parked: {
    default: 10_000,
    min: 0,
    max: 100_000,
    help: 'parked runs for the memory and throughput figures (0: skip)',
  },
  defaults: {
    default: 0,
    min: 0,
    max: 1,
    help: "1: also measure on a dev server with Temporal's default dynamic config",
  },
  peer: { default: 1, min: 0, max: 1, help: '0: skip the Mastra peer' },
  samples: { default: 30, min: 3, max: 1000, help: 'approvals timed per figure' },
  runs: { default: 10, min: 1, max: 1000, help: 'timed runs of the per-step loops' },
  steps: { default: 10, min: 2, max: 100, help: 'model steps per run of the per-step loops' },
  'follow-update': {
    default: 0,
    min: 0,
    max: 1,
    help: "1: Tollgate's runtimes follow runs with follow: 'update' (docs/streams.md)",
  },
  'load-seconds': {
    default: 3600,
    min: 60,
    max: 4 * 3600,
    help: "time bound of each parked-runs measurement (bench/load.ts's --seconds)",
  },
});

const LOAD_SCRIPT = fileURLToPath(new URL('./load.js', import.meta.url));
const p50 = (values: number[]) => median(values);

async function measureSide(label: string, choice: ServerChoice): Promise<SideFigures> {
  progress(
    `${label}: starting the server side (${choice.external ? choice.external.address : 'dev server'})`,
  );
  const env = await startEnvironment(
    [perStepAgent(), localPerStepAgent(), approvalAgent()],
    choice,
  );
  try {
    const warmups = 2;
    // Tollgate's runs alternate with the floor's, so a noisy machine weighs on both alike.
    const floor = await measureFloor(
      env.server,
      { steps: options.steps, runs: options.runs, warmups: 1, samples: options.samples },
      tollgateRunner(env.tollgate),
      tollgateRunner(env.tollgate, LOCAL_PER_STEP_AGENT_ID),
      approvalRunner(env.tollgate),
    );
    const inProcess = await measureInProcess(env.server.pid, {
      steps: options.steps,
      runs: options.runs,
      warmups: 1,
    });
    const approvals: ApprovalSample[] = floor.alongsideApprovals!;
    const http = await measureHttpApprove(env, { samples: options.samples, warmups });
    const parked = options.parked > 0 ? await measureParked(choice, env.server) : undefined;
    return {
      label,
      server: choice.external
        ? `external server ${choice.external.address} (its own dynamic config)`
        : describeConfig(env.server.dynamicConfig ?? {}),
      tollgate: {
        perStepMs: floor.alongsidePerStepMs!,
        localPerStepMs: floor.alongsideLocalPerStepMs!,
        approveToToolStartMs: p50(approvals.map((s) => s.toToolStartMs)),
        approveToEndMs: p50(approvals.map((s) => s.toRunEndMs)),
        httpToHeadersMs: p50(http.map((s) => s.toHeadersMs)),
        httpToEndMs: p50(http.map((s) => s.toStreamEndMs)),
      },
      aiSdkPerStepMs: inProcess.runMs / options.steps,
      cpuPerStep: {
        floor: floor.cpuPerStep.floor,
        sameWork: floor.cpuPerStep.sameWork,
        tollgate: floor.cpuPerStep.alongside,
      },
      floor: {
        remotePerStepMs: floor.remotePerStepMs,
        sameWorkPerStepMs: floor.sameWorkPerStepMs,
        localPerStepMs: floor.localPerStepMs,
        sameWorkUpdateToEndMs: p50(floor.sameWorkUpdate.map((s) => s.toEndMs)),
        updateToStartMs: p50(floor.update.map((s) => s.toActivityStartMs)),
        signalToStartMs: p50(floor.signal.map((s) => s.toActivityStartMs)),
        updateToEndMs: p50(floor.update.map((s) => s.toEndMs)),
        signalToEndMs: p50(floor.signal.map((s) => s.toEndMs)),
        emptyTaskMs: p50(floor.emptyTaskMs),
      },
      ...(parked ? { parked } : {}),
    };
  } finally {
    await env.close();
  }
}

function describeConfig(config: Readonly<Record<string, unknown>>): string {
  const entries = Object.entries(config);
  return entries.length === 0
    ? "dev server, Temporal's default dynamic config"
    : `dev server, ${entries.map(([key, value]) => `${key}=${String(value)}`).join(', ')}`;
}

/**
 * bench/load.ts in its own process. On a dev server it starts its own, with the same settings:
 * its watchdog can then restart a dev server whose SQLite store gets stuck (the bench of its
 * parent could only wait); Tollgate and the bare baseline still share that one server. A server
 * given by `--address` is measured as it is.
 */
async function measureParked(
  choice: ServerChoice,
  server: { address: string; namespace: string; pid: number },
) {
  progress(`parked runs: node dist/bench/load.js --runs ${options.parked} (its progress follows)`);
  const args = [LOAD_SCRIPT, '--runs', String(options.parked)];
  args.push('--seconds', String(options['load-seconds']));
  if (!choice.external) args.push('--tuned', choice.tuned === false ? '0' : '1');
  if (choice.follow === 'update') args.push('--follow-update', '1');
  const env = { ...process.env };
  if (choice.external)
    env.TOLLGATE_BENCH_SERVER = `${server.address} ${server.namespace} ${server.pid}`;
  else delete env.TOLLGATE_BENCH_SERVER;
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const line = stdout.split('\n').find((l) => l.startsWith('load-summary-json '));
  if (code !== 0 || !line)
    throw new Error(`bench/load.js failed (exit ${code}):\n${stdout.slice(-2000)}`);
  return JSON.parse(line.slice('load-summary-json '.length)) as SideFigures['parked'] & object;
}

async function measurePeer(): Promise<PeerFigures> {
  try {
    const peer = await startMastraPeer(await installPeer());
    try {
      progress(`peer: Mastra ${peer.version}, ${options.runs} runs of ${options.steps} steps`);
      await peer.runSteps(options.steps);
      const runs: number[] = [];
      for (let i = 0; i < options.runs; i++)
        runs.push((await timed(() => peer.runSteps(options.steps))).ms);
      progress(`peer: ${options.samples} approvals`);
      for (let i = 0; i < 2; i++) await peer.approveOnce();
      const approvals = [];
      for (let i = 0; i < options.samples; i++) approvals.push(await peer.approveOnce());
      return {
        version: `@mastra/core ${peer.version} + @mastra/libsql (file storage), in-process`,
        perStepMs: median(runs) / options.steps,
        approveToToolStartMs: p50(approvals.map((s) => s.toToolStartMs)),
        approveToEndMs: p50(approvals.map((s) => s.toRunEndMs)),
      };
    } finally {
      await peer.close();
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    progress(`peer: not measured: ${reason}`);
    return { unavailable: reason.slice(0, 2000) };
  }
}

function machineLoad(): string {
  let uptime = 'unknown';
  try {
    uptime = execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    // uptime(1) is missing on some images; /proc/loadavg is in the environment facts anyway.
  }
  return `${cpus().length} CPUs; uptime: ${uptime}`;
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = machineLoad();
  const sides: SideFigures[] = [];
  const measure = async (label: string, choice: ServerChoice) => {
    const side = await measureSide(label, choice);
    sides.push(side);
    // Each server's figures as soon as they are known, without the peer's column yet.
    for (const line of compareTable([side], undefined).slice(1)) progress(line);
  };
  const follow = options['follow-update'] === 1 ? 'update' : 'history';
  if (external) await measure('external', { external, follow });
  else {
    await measure('tuned', { tuned: true, follow });
    if (options.defaults === 1) await measure('Temporal defaults', { tuned: false, follow });
  }
  const peer = options.peer === 1 ? await measurePeer() : undefined;
  const { findTemporalCli } = await import('../src/index.js');
  const facts = await environmentFacts(await findTemporalCli());
  console.log(
    [
      'Tollgate side-by-side benchmark',
      ...facts.map((fact) => `environment: ${fact}`),
      `machine load before: ${loadBefore}`,
      `machine load after:  ${machineLoad()}`,
      `per-step: median of ${options.runs} runs of ${options.steps} model steps (${options.steps - 1} tool calls, then text), per step, Tollgate's runs alternating with the floor's remote and same-work loops; ` +
        `approvals: p50 of ${options.samples} sequential parked runs, each after a bare and a same-work gate; parked runs: ${options.parked || 'skipped'}; follow: ${follow}`,
      '',
      ...compareTable(sides, peer),
      '',
      `wall time: ${((performance.now() - started) / 1000).toFixed(0)} s`,
    ].join('\n'),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
