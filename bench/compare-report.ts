/** The side-by-side benchmark's table: Tollgate, the floor and the peer, with ratios. */
import type { CpuSample } from './cpu.js';
import { ms } from './stats.js';
import { mib } from './support/system.js';

/** Everything measured on one server. */
export interface SideFigures {
  label: string;
  /** The server and the dynamic config it ran with. */
  server: string;
  tollgate: {
    perStepMs: number;
    /**
     * Local mode (`modelSteps: 'local'`, a `local: true` ungated tool): consecutive steps run as
     * stretches.
     */
    localPerStepMs: number;
    approveToToolStartMs: number;
    approveToEndMs: number;
    httpToHeadersMs: number;
    httpToEndMs: number;
  };
  /** The AI SDK's own loop in-process (streamText + execute), for reference. */
  aiSdkPerStepMs: number;
  /** CPU per step of the bench process and of the server, over the alternating per-step runs. */
  cpuPerStep: { floor: CpuSample; sameWork: CpuSample; tollgate: CpuSample };
  floor: {
    remotePerStepMs: number;
    /**
     * The same-work floor (bench/floor.ts): the bare loop plus what Tollgate's guarantees add,
     * i.e. a client following the history as a stream does and each tool call's execution mark.
     */
    sameWorkPerStepMs: number;
    localPerStepMs: number;
    /** The same-work gate: update → the run's end, read by following its history. */
    sameWorkUpdateToEndMs: number;
    updateToStartMs: number;
    signalToStartMs: number;
    updateToEndMs: number;
    signalToEndMs: number;
    /** The physical limit: an empty workflow task's round trip (a no-op update), p50. */
    emptyTaskMs: number;
  };
  /** bench/load.ts's summary: rates in runs/s, memory in KiB. */
  parked?: {
    parked: number;
    idleRssKiB: number;
    parkedRssKiB: number;
    parkedHwmKiB: number;
    park: number;
    release: number | null;
    baseline: { park: number; release: number } | null;
    /** The same-work baseline (a model step before the wait; marked tool, answering step after). */
    sameWork?: { park: number; release: number } | null;
    failed: number;
  };
}

export type PeerFigures =
  | { version: string; perStepMs: number; approveToToolStartMs: number; approveToEndMs: number }
  | { unavailable: string };

const ratio = (value: number, reference: number | undefined) =>
  reference === undefined || !Number.isFinite(reference) || reference <= 0
    ? '—'
    : `${(value / reference).toFixed(2)}×`;

function row(cells: string[]): string {
  const widths = [44, 12, 44, 12, 10, 10, 10];
  return `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 10)).join(' | ')} |`;
}

export function compareTable(sides: SideFigures[], peer: PeerFigures | undefined): string[] {
  const measured = peer && 'perStepMs' in peer ? peer : undefined;
  const lines: string[] = [
    measured
      ? `peer: ${measured.version}`
      : `peer: not measured${peer && 'unavailable' in peer ? `: ${peer.unavailable}` : ' (--peer 0)'}`,
  ];
  for (const side of sides) {
    const { tollgate: t, floor: f, parked } = side;
    lines.push(
      '',
      `## ${side.label}: ${side.server}`,
      row([
        'what',
        'Tollgate',
        'floor (bare Temporal, same server)',
        'peer',
        '× floor',
        '× peer',
        '× limit',
      ]),
      row(['---', '---', '---', '---', '---', '---', '---']),
      row([
        'physical limit: empty workflow task, p50',
        '',
        `${ms(f.emptyTaskMs)} (no-op update round trip)`,
        '',
        '',
        '',
        '1×',
      ]),
      row([
        'wall time per agent step (model + tool)',
        ms(t.perStepMs),
        `${ms(f.remotePerStepMs)} (2 remote activities)`,
        measured ? ms(measured.perStepMs) : '—',
        ratio(t.perStepMs, f.remotePerStepMs),
        ratio(t.perStepMs, measured?.perStepMs),
        ratio(t.perStepMs, f.emptyTaskMs),
      ]),
      row([
        '  against the same-work floor',
        '',
        `${ms(f.sameWorkPerStepMs)} (+ followed, execution mark)`,
        '',
        ratio(t.perStepMs, f.sameWorkPerStepMs),
        '',
        '',
      ]),
      row([
        '  local mode (stretches), per step',
        ms(t.localPerStepMs),
        `${ms(f.localPerStepMs)} (2 local activities)`,
        measured ? ms(measured.perStepMs) : '—',
        ratio(t.localPerStepMs, f.localPerStepMs),
        ratio(t.localPerStepMs, measured?.perStepMs),
        ratio(t.localPerStepMs, f.emptyTaskMs),
      ]),
      row([
        'approve → tool execute starts, p50',
        ms(t.approveToToolStartMs),
        `${ms(f.updateToStartMs)} update / ${ms(f.signalToStartMs)} signal`,
        measured ? ms(measured.approveToToolStartMs) : '—',
        ratio(t.approveToToolStartMs, f.updateToStartMs),
        ratio(t.approveToToolStartMs, measured?.approveToToolStartMs),
        ratio(t.approveToToolStartMs, f.emptyTaskMs),
      ]),
      row([
        'approve → run finished, p50',
        ms(t.approveToEndMs),
        `${ms(f.updateToEndMs)} update / ${ms(f.signalToEndMs)} signal`,
        measured ? ms(measured.approveToEndMs) : '—',
        ratio(t.approveToEndMs, f.updateToEndMs),
        ratio(t.approveToEndMs, measured?.approveToEndMs),
        ratio(t.approveToEndMs, f.emptyTaskMs),
      ]),
      row([
        '  against the same-work floor',
        '',
        `${ms(f.sameWorkUpdateToEndMs)} (+ mark, answering step, followed)`,
        '',
        ratio(t.approveToEndMs, f.sameWorkUpdateToEndMs),
        '',
        '',
      ]),
      row([
        'HTTP approve-tool-call p50 (to headers)',
        ms(t.httpToHeadersMs),
        `${ms(f.updateToStartMs)} (update → activity)`,
        '—',
        ratio(t.httpToHeadersMs, f.updateToStartMs),
        '—',
        ratio(t.httpToHeadersMs, f.emptyTaskMs),
      ]),
      row([
        '  (to the end of its SSE stream)',
        ms(t.httpToEndMs),
        '',
        '—',
        ratio(t.httpToEndMs, f.updateToEndMs),
        '—',
        ratio(t.httpToEndMs, f.emptyTaskMs),
      ]),
      ...(parked
        ? parkedRows(parked)
        : [row(['parked runs', 'skipped (--parked 0)', '', '', '', ''])]),
      `(for reference: the AI SDK's own loop in-process, streamText + execute: ${ms(side.aiSdkPerStepMs)} per step)`,
      `CPU per step, this process (client, worker, activities) / the server: ${cpuText(side.cpuPerStep)}`,
    );
  }
  return lines;
}

function cpuText(cpu: SideFigures['cpuPerStep']): string {
  const one = (sample: CpuSample) =>
    `${ms(sample.ownMs)} / ${sample.serverMs === undefined ? '—' : ms(sample.serverMs)}`;
  return `floor ${one(cpu.floor)}, same-work floor ${one(cpu.sameWork)}, Tollgate ${one(cpu.tollgate)}`;
}

function parkedRows(parked: NonNullable<SideFigures['parked']>): string[] {
  const rows = [
    row([
      `${parked.parked} parked runs, worker RSS`,
      `${mib(parked.parkedRssKiB)} (${mib(parked.idleRssKiB)} idle)`,
      '—',
      'not measured',
      '',
      '',
    ]),
    ...throughputRows('park', parked.park, parked.baseline?.park, parked.sameWork?.park),
  ];
  if (parked.release !== null)
    rows.push(
      ...throughputRows(
        'release',
        parked.release,
        parked.baseline?.release,
        parked.sameWork?.release,
      ),
    );
  if (parked.failed > 0)
    rows.push(`(parked runs: ${parked.failed} failed; see bench/load.ts's report)`);
  return rows;
}

/** A throughput row against the bare baseline, and one against the same-work baseline if any. */
function throughputRows(
  what: string,
  tollgate: number,
  bare: number | undefined,
  sameWork: number | undefined,
): string[] {
  const rows = [
    row([
      `${what} throughput (runs/s)`,
      tollgate.toFixed(1),
      bare !== undefined ? bare.toFixed(1) : '—',
      '—',
      bare !== undefined ? ratio(tollgate, bare) : '—',
      '',
    ]),
  ];
  if (sameWork !== undefined)
    rows.push(
      row([
        '  against the same-work baseline',
        '',
        `${sameWork.toFixed(1)} (+ model step, marked tool, answer)`,
        '',
        ratio(tollgate, sameWork),
        '',
      ]),
    );
  return rows;
}
