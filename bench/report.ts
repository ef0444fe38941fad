/** Turns the measurements into the lines the benchmark prints. */
import type { ApprovalSample } from './approval-latency.js';
import type { HistorySize } from './history-size.js';
import type { PerStepResult, RunnerTimes } from './per-step.js';
import { bytes, median, ms, quantile } from './stats.js';

export function perStepLines(result: PerStepResult): { detail: string[]; summary: string } {
  const { steps, runs, warmups } = result.options;
  const inProcess = result.inProcess.runMs / steps;
  const tollgate = result.tollgate.runMs / steps;
  const marginal = (runMs: number, oneStepMs: number) => (runMs - oneStepMs) / (steps - 1);
  const summary = `per-step: in-process ${ms(inProcess)}, tollgate ${ms(tollgate)}, overhead +${ms(tollgate - inProcess)}/step, ratio ${(tollgate / inProcess).toFixed(0)}x`;
  return {
    summary,
    detail: [
      `1. Per-step overhead: N=${steps} model steps per run (${steps - 1} tool calls, then text), no approval; median of ${runs} runs after ${warmups} warm-up`,
      `   in-process AI SDK (streamText + execute): run ${ms(result.inProcess.runMs)} -> ${ms(inProcess)}/step`,
      `   Tollgate (agent.generate, maxSteps ${steps}):  run ${ms(result.tollgate.runMs)} -> ${ms(tollgate)}/step`,
      `   overhead +${ms(tollgate - inProcess)}/step, ratio ${(tollgate / inProcess).toFixed(1)}x`,
      `   1-step runs (text only, no tool): in-process ${ms(result.inProcess.oneStepRunMs)}, Tollgate ${ms(result.tollgate.oneStepRunMs)}`,
      `   CPU per step, over the measured runs: in-process ${cpuPerStep(result.inProcess, runs * steps)}; Tollgate ${cpuPerStep(result.tollgate, runs * steps)}`,
      `   marginal cost of one tool step, (run(N) - run(1)) / ${steps - 1}: in-process ${ms(marginal(result.inProcess.runMs, result.inProcess.oneStepRunMs))}, Tollgate ${ms(marginal(result.tollgate.runMs, result.tollgate.oneStepRunMs))}`,
    ],
  };
}

function cpuPerStep(times: RunnerTimes, steps: number): string {
  const server = times.cpu.serverMs === undefined ? 'unknown' : ms(times.cpu.serverMs / steps);
  return `this process ${ms(times.cpu.ownMs / steps)}, dev server ${server}`;
}

export function approvalLines(
  samples: ApprovalSample[],
  warmups: number,
): { detail: string[]; summary: string } {
  const start = samples.map((s) => s.toToolStartMs);
  const describe = (values: number[]) =>
    `median ${ms(median(values))}, p90 ${ms(quantile(values, 0.9))}, p99 ${ms(quantile(values, 0.99))}, min ${ms(Math.min(...values))}, max ${ms(Math.max(...values))}`;
  return {
    summary: `approve -> tool start: median ${ms(median(start))}, p99 ${ms(quantile(start, 0.99))} (min ${ms(Math.min(...start))}, max ${ms(Math.max(...start))}, n=${samples.length})`,
    detail: [
      `2. Approve-to-tool-start latency: ${samples.length} sequential runs after ${warmups} warm-up, gated tool (requireApproval: true); with ${samples.length} samples p99 is the ${Math.ceil(0.99 * samples.length)}th smallest`,
      `   approveToolCall() called -> tool execute starts:    ${describe(start)}`,
      `   approveToolCall() called -> approveToolCall() resolves: ${describe(samples.map((s) => s.toUpdateDoneMs))}`,
      `   approveToolCall() called -> run's finish chunk read:    ${describe(samples.map((s) => s.toRunEndMs))}`,
    ],
  };
}

export function historyLines(
  sizes: HistorySize[],
  messageChars: number,
): { detail: string[]; summary: string } {
  const first = sizes[0]!;
  const last = sizes.at(-1)!;
  const rows = sizes.map(
    (s) =>
      `   ${String(s.steps).padStart(5)} | ${String(s.events).padStart(6)} | ${String(s.protoBytes).padStart(11)} | ${(s.protoBytes / s.steps).toFixed(0).padStart(10)} | ${String(s.jsonBytes).padStart(10)} | ${(s.jsonBytes / s.steps).toFixed(0).padStart(10)} | ${s.largestEvent.bytes} B (${s.largestEvent.type})`,
  );
  const growth = (pick: (s: HistorySize) => number) => pick(last) / pick(first);
  const marginal = sizes.slice(1).map((s, i) => {
    const prev = sizes[i]!;
    return {
      label: `${prev.steps}->${s.steps}`,
      perStep: (s.protoBytes - prev.protoBytes) / (s.steps - prev.steps),
    };
  });
  const drift = marginal.length >= 2 ? marginal.at(-1)!.perStep / marginal[0]!.perStep : 1;
  const verdict =
    drift < 1.25 ? 'linear' : `NOT linear: the marginal cost of a step grows ${drift.toFixed(2)}x`;
  return {
    summary: `history: ${sizes.map((s) => `${s.steps} steps ${bytes(s.protoBytes)}`).join(', ')}; ${last.steps}/${first.steps} growth ${growth((s) => s.protoBytes).toFixed(2)}x (linear ~${last.steps / first.steps}, quadratic ~${(last.steps / first.steps) ** 2}) -> ${verdict}`,
    detail: [
      `3. History size (~${messageChars}-char model text per step, ~${messageChars}-char tool result per tool step)`,
      `   steps | events | proto bytes | proto B/st | JSON bytes |  JSON B/st | largest event`,
      ...rows,
      `   growth ${last.steps}/${first.steps}: proto ${growth((s) => s.protoBytes).toFixed(2)}x, JSON ${growth((s) => s.jsonBytes).toFixed(2)}x, events ${growth((s) => s.events).toFixed(2)}x (linear ~${last.steps / first.steps}, quadratic ~${(last.steps / first.steps) ** 2}; a fixed per-run part pulls linear below ${last.steps / first.steps})`,
      `   marginal proto bytes per added step: ${marginal.map((m) => `${m.label}: ${m.perStep.toFixed(0)} B`).join(', ')} (equal if linear, doubling if quadratic) -> ${verdict}`,
    ],
  };
}
