/** What the deploy bench found, and the lines it prints. */
import type { DeploymentReport, VersionReport } from '../../src/temporal-client/deployments.js';
import { median, ms, quantile } from '../stats.js';
import { seconds } from '../support/system.js';
import type { Effect, Release } from './agents.js';
import type { Cohort, DeployRun, Refusals } from './runs.js';

/**
 * Run failures the docs give as a possible outcome when workers of one task queue host different
 * agents, which a roll that adds and removes agents makes them do; accepted, but still listed.
 * Any other failure counts as undocumented.
 */
export const DOCUMENTED_FAILURES: Readonly<Record<string, string>> = {
  AGENT_NOT_FOUND:
    'docs/design-choices.md "All workers of a task queue must host the same agents", docs/agent-directory.md',
};

/** Where a run's gated tool ran: on A, on B, on both (twice), or nowhere. */
type Placement = Release | 'A+B' | 'nowhere';

export interface Findings {
  runs: DeployRun[];
  completed: DeployRun[];
  failedDocumented: DeployRun[];
  failedUndocumented: DeployRun[];
  /** Runs that neither completed nor failed by the end (missing runs included). */
  lost: DeployRun[];
  /** Tool calls executed more than once: `runId/toolCallId` and the releases that ran them. */
  twice: Array<{ key: string; releases: Release[] }>;
  /** Completed runs whose tool never ran. */
  withoutEffect: DeployRun[];
  placement: Map<string, Map<Placement, number>>;
  /** Release that wrote each completed run's last model step, per cohort and agent. */
  lastStep: Map<string, Map<string, number>>;
  failed: boolean;
}

export function deployFindings(runs: DeployRun[], effects: Effect[]): Findings {
  const byCall = new Map<string, Effect[]>();
  for (const effect of effects) {
    const key = `${effect.runId}/${effect.toolCallId}`;
    byCall.set(key, [...(byCall.get(key) ?? []), effect]);
  }
  const twice = [...byCall]
    .filter(([, list]) => list.length > 1)
    .map(([key, list]) => ({ key, releases: list.map((effect) => effect.release) }));
  const effectsOf = (run: DeployRun) => effects.filter((effect) => effect.runId === run.runId);
  const completed = runs.filter((run) => run.end?.status === 'completed');
  const failed = runs.filter((run) => run.end?.status === 'failed');
  const documented = (run: DeployRun) =>
    run.end?.status === 'failed' && Object.hasOwn(DOCUMENTED_FAILURES, run.end.code);
  const placement = new Map<string, Map<Placement, number>>();
  const lastStep = new Map<string, Map<string, number>>();
  for (const run of runs) {
    const group = `${run.cohort}, ${run.agentId}`;
    const releases = new Set(effectsOf(run).map((effect) => effect.release));
    const where: Placement =
      releases.size === 0 ? 'nowhere' : releases.size === 2 ? 'A+B' : [...releases][0]!;
    count(placement, group, where);
    if (run.end?.status === 'completed')
      count(lastStep, group, /release ([AB])/.exec(run.end.text)?.[1] ?? `"${run.end.text}"`);
  }
  const findings = {
    runs,
    completed,
    failedDocumented: failed.filter(documented),
    failedUndocumented: failed.filter((run) => !documented(run)),
    lost: runs.filter((run) => run.end === undefined),
    twice,
    withoutEffect: completed.filter((run) => effectsOf(run).length === 0),
    placement,
    lastStep,
  };
  return {
    ...findings,
    failed:
      findings.lost.length +
        twice.length +
        findings.failedUndocumented.length +
        findings.withoutEffect.length >
      0,
  };
}

function count<K>(table: Map<string, Map<K, number>>, group: string, key: K): void {
  const row = table.get(group) ?? new Map<K, number>();
  row.set(key, (row.get(key) ?? 0) + 1);
  table.set(group, row);
}

/** The deployment at one moment of the bench. */
export interface Snapshot {
  after: string;
  atMs: number;
  ended: number;
  report?: DeploymentReport;
  error?: string;
}

export interface RollTimes {
  /** Parking the runs on A, before the roll. */
  parkMs: number;
  /** B's `startWorker()`, during the roll's first stage. */
  bStartMs: number;
  /** From B's start until every run ended (or the drain ran out). */
  rollMs: number;
  /** A's `shutdown()`. */
  stopAMs: number;
  retire?: {
    ok: boolean;
    /** Until the report counted no run pinned to A (visibility catching up). */
    pinnedWaitMs: number;
    /** The `retire` call, waiting for Temporal to forget A's stopped workers. */
    waitMs: number;
    error?: string;
  };
}

export interface ReportInput {
  facts: string[];
  settings: string;
  dynamicConfig: Readonly<Record<string, string | number | boolean>>;
  serverRestarts: number;
  load: { start: string; end: string };
  findings: Findings;
  refusals: Refusals;
  snapshots: Snapshot[];
  times: RollTimes;
  moves: { moved: number; note: string };
  retire: RollTimes['retire'];
  began: number;
}

export function deployLines(input: ReportInput): string[] {
  const { findings: f, times } = input;
  const cohorts = new Map<Cohort, number>();
  for (const run of f.runs) cohorts.set(run.cohort, (cohorts.get(run.cohort) ?? 0) + 1);
  const refused = input.refusals.total();
  const gaveUp = f.runs.filter((run) => run.approval === 'gave-up').length;
  const late = f.runs.filter((run) => run.approval === 'confirmed-late').length;
  return [
    'Tollgate rolling-deploy benchmark',
    ...input.facts.map((fact) => `environment: ${fact}`),
    `settings: ${input.settings}`,
    `Temporal dynamic config: ${
      Object.entries(input.dynamicConfig)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(', ') || "Temporal's defaults"
    } (everything else, Worker Deployments included, at the dev server's defaults); dev server restarts: ${input.serverRestarts}`,
    `load average (1/5/15 min): ${input.load.start} at start, ${input.load.end} at the end`,
    '',
    `runs started: ${f.runs.length} (${[...cohorts].map(([cohort, n]) => `${n} ${cohort}`).join(', ')})` +
      `, parked on their gated call: ${f.runs.filter((run) => run.parked).length}`,
    `completed: ${f.completed.length}`,
    `lost (neither completed nor failed, or missing): ${f.lost.length}` + list(f.lost, describeRun),
    `effects executed twice: ${f.twice.length}` +
      list(f.twice, (t) => `${t.key} on ${t.releases.join(', ')}`),
    `completed without their effect: ${f.withoutEffect.length}` +
      list(f.withoutEffect, describeRun),
    `runs failed for a reason the docs do not give: ${f.failedUndocumented.length}` +
      list(f.failedUndocumented, describeRun),
    `runs failed for a documented reason: ${f.failedDocumented.length}` +
      list(f.failedDocumented, describeRun) +
      `; accepted: ${Object.entries(DOCUMENTED_FAILURES)
        .map(([code, doc]) => `${code} (${doc})`)
        .join('; ')}`,
    `decisions refused: ${sum(refused)}${refused.size > 0 ? ` (${codes(refused)})` : ''}; approvals given up: ${gaveUp}, confirmed by a later attempt: ${late}`,
    ...[...input.refusals.byStage].map(
      ([stage, byCode]) => `  during "${stage}": ${codes(byCode)}`,
    ),
    `approval sent -> confirmed: ${spread(f.runs, (run) => run.approvalDoneAt)}`,
    `approval sent -> run ended: ${spread(f.runs, (run) => run.endedAt)}`,
    ...stagesOf(f.runs).map((stage) => {
      const runs = f.runs.filter((run) => run.approvedIn === stage);
      return (
        `  approved during "${stage}" (${runs.length}): confirmed ${spread(runs, (run) => run.approvalDoneAt, false)}; ` +
        `ended ${spread(runs, (run) => run.endedAt, false)}`
      );
    }),
    `slowest from approval to end, with the task that waited longest in their histories:`,
    ...slowest(f.runs, SLOWEST_RUNS).map(
      (run) =>
        `  ${run.runId} (${run.cohort}, ${run.agentId}, approved during "${run.approvedIn}"): ` +
        `${seconds(run.endedAt! - run.approvalSentAt!)}; ${run.longestWait ?? 'history not read'}`,
    ),
    '',
    "where each run's tool ran (and which release wrote its last model step):",
    ...[...f.placement].map(
      ([group, where]) =>
        `  ${group}: ${[...where].map(([at, n]) => `${at} ${n}`).join(', ')}` +
        ` (last step: ${[...(f.lastStep.get(group) ?? new Map<string, number>())].map(([at, n]) => `${at} ${n}`).join(', ') || 'none'})`,
    ),
    '',
    `parking ${f.runs.filter((r) => r.cohort === 'parked before the roll').length} runs on A: ${seconds(times.parkMs)}`,
    `the roll, from B's start until every run ended: ${seconds(times.rollMs)}` +
      (f.lost.length > 0 ? ` (no: the drain ran out with ${f.lost.length} run(s) open)` : '') +
      ` (B's startWorker ${seconds(times.bStartMs)})`,
    `moves: ${input.moves.moved} (${input.moves.note})`,
    `stopping A: ${seconds(times.stopAMs)}`,
    input.retire
      ? `retiring A: ${input.retire.ok ? 'retired' : `NOT retired: ${input.retire.error}`}; ` +
        `waited ${seconds(input.retire.pinnedWaitMs)} for the report to count no run pinned to A, then ` +
        `${seconds(input.retire.waitMs)} in retire() for Temporal to forget A's stopped workers`
      : 'retiring A: skipped (--skip-retire)',
    '',
    'the deployment as tollgate.deployments.report() saw it:',
    ...input.snapshots.map(snapshotLine),
    '',
    `RESULT: started ${f.runs.length}, completed ${f.completed.length}, lost ${f.lost.length}, ` +
      `effects twice ${f.twice.length}, undocumented failures ${f.failedUndocumented.length}, ` +
      `decisions refused ${sum(refused)}${refused.size > 0 ? ` (${codes(refused)})` : ''}, ` +
      `roll ${seconds(times.rollMs)}, retire wait ${input.retire ? seconds(input.retire.waitMs) : 'skipped'}`,
  ];
}

/** The runs slowest from approval to end whose histories are read for the task that waited. */
export const SLOWEST_RUNS = 5;

/** The `count` ended runs that took longest from their approval to their end, slowest first. */
export function slowest(runs: DeployRun[], count: number): DeployRun[] {
  const took = (run: DeployRun) => run.endedAt! - run.approvalSentAt!;
  return runs
    .filter((run) => run.endedAt !== undefined && run.approvalSentAt !== undefined)
    .sort((a, b) => took(b) - took(a))
    .slice(0, count);
}

/** The stages in which approvals were sent, in order. */
function stagesOf(runs: DeployRun[]): string[] {
  const sent = runs.filter((run) => run.approvedIn !== undefined);
  sent.sort((a, b) => a.approvalSentAt! - b.approvalSentAt!);
  return [...new Set(sent.map((run) => run.approvedIn!))];
}

/** p50, p90 and max of `to(run) - approvalSentAt` over the runs that have both. */
function spread(
  runs: DeployRun[],
  to: (run: DeployRun) => number | undefined,
  withCount = true,
): string {
  const values = runs.flatMap((run) => {
    const end = to(run);
    return run.approvalSentAt !== undefined && end !== undefined ? [end - run.approvalSentAt] : [];
  });
  if (values.length === 0) return 'none';
  return (
    `p50 ${ms(median(values))}, p90 ${ms(quantile(values, 0.9))}, max ${ms(Math.max(...values))}` +
    (withCount ? ` (n=${values.length})` : '')
  );
}

function snapshotLine(snapshot: Snapshot): string {
  const head = `  t+${seconds(snapshot.atMs).padStart(8)}  ${snapshot.after.padEnd(20)} ended ${String(snapshot.ended).padStart(4)}`;
  if (!snapshot.report) return `${head}  report failed: ${snapshot.error ?? 'no deployment'}`;
  const { currentBuildId, rampingBuildId, versions } = snapshot.report;
  const routing = `current ${currentBuildId ?? 'none'}${rampingBuildId ? `, ramping ${rampingBuildId}` : ''}`;
  return `${head}  ${routing}; ${versions.map(versionText).join('; ') || 'no builds'}`;
}

function versionText(version: VersionReport): string {
  const ramp = version.rampPercent !== undefined ? ` ${version.rampPercent} %` : '';
  return (
    `${version.buildId} ${version.status}${ramp}, pollers ${version.pollers}, ` +
    `pinned open ${version.openRuns} (parked ${version.parkedRuns})${version.retirable ? ', retirable' : ''}`
  );
}

function describeRun(run: DeployRun): string {
  const end =
    run.end === undefined
      ? `no end${run.startError ? `, start: ${run.startError}` : ''}${run.approval ? `, approval ${run.approval}` : ''}` +
        (run.diagnosis ? `; Temporal: ${run.diagnosis}` : '')
      : run.end.status === 'failed'
        ? `failed ${run.end.code}: ${run.end.message.slice(0, 200)}`
        : `completed "${run.end.text}"`;
  return `${run.runId} (${run.agentId}, ${run.cohort}): ${end}`;
}

function list<T>(items: T[], text: (item: T) => string, most = 10): string {
  if (items.length === 0) return '';
  const more = items.length > most ? `\n    ... and ${items.length - most} more` : '';
  return (
    items
      .slice(0, most)
      .map((item) => `\n    ${text(item)}`)
      .join('') + more
  );
}

function sum(counts: Map<string, number>): number {
  return [...counts.values()].reduce((a, b) => a + b, 0);
}

function codes(counts: Map<string, number>): string {
  return [...counts].map(([code, n]) => `${code} ${n}`).join(', ');
}
