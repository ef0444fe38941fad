/**
 * What the fault benchmark found: runs lost, effects executed twice, decisions applied against
 * what callers were told, and the tallies it prints.
 */
import type { Client } from '@temporalio/client';
import type { AuditEntry } from '../../src/index.js';
import { median } from '../stats.js';
import { seconds } from '../support/system.js';
import type { FaultCluster } from './cluster.js';
import {
  ATTEMPT_KINDS,
  appliedDecisions,
  EXPECTED_REFUSALS,
  type Attempt,
  type AttemptKind,
} from './decisions.js';
import type { JournalLine } from './journal.js';
import type { PlannedRun } from './runs.js';

export interface Findings {
  started: number;
  completed: number;
  closedOtherwise: PlannedRun[];
  lost: PlannedRun[];
  notStarted: PlannedRun[];
  duplicateKeys: Array<{ key: string; effects: number }>;
  duplicateLogical: Array<{ logical: string; keys: string[]; effects: number }>;
  violations: string[];
  /** Runs to show a history excerpt of. */
  suspects: Set<string>;
  lines: string[];
}

export function analyse(
  runs: PlannedRun[],
  journal: JournalLine[],
  audits: Map<string, AuditEntry[]>,
): Findings {
  const violations: string[] = [];
  const suspects = new Set<string>();
  const flag = (runId: string, message: string) => {
    violations.push(`${runId}: ${message}`);
    suspects.add(runId);
  };

  const started = runs.filter((run) => run.started);
  const lost = started.filter((run) => run.status === undefined);
  for (const run of lost) suspects.add(run.runId);
  const completed = started.filter((run) => run.status === 'COMPLETED');
  const closedOtherwise = started.filter(
    (run) => run.status !== undefined && run.status !== 'COMPLETED',
  );
  for (const run of closedOtherwise) flag(run.runId, `closed as ${run.status}, not COMPLETED`);
  for (const run of completed)
    if (run.finishReason !== 'stop')
      flag(run.runId, `completed with finishReason ${run.finishReason}`);

  // Effects, by idempotency key and by what the call was (run tag + tool).
  const effectsByKey = countBy(
    journal.filter((l) => l.event === 'effect'),
    (l) => l.key!,
  );
  const startsByKey = countBy(
    journal.filter((l) => l.event === 'started'),
    (l) => l.key!,
  );
  const duplicateKeys = [...effectsByKey]
    .filter(([, effects]) => effects > 1)
    .map(([key, effects]) => ({ key, effects }));
  const byLogical = new Map<string, { keys: Set<string>; effects: number }>();
  for (const line of journal.filter((l) => l.event === 'effect')) {
    const entry = byLogical.get(line.logical!) ?? { keys: new Set(), effects: 0 };
    entry.keys.add(line.key!);
    entry.effects++;
    byLogical.set(line.logical!, entry);
  }
  const duplicateLogical = [...byLogical]
    .filter(([, entry]) => entry.effects > 1)
    .map(([logical, entry]) => ({ logical, keys: [...entry.keys], effects: entry.effects }));
  for (const { key, effects } of duplicateKeys)
    flag(key.split(':')[0]!, `effect of ${key} executed ${effects} times`);
  for (const { logical, keys } of duplicateLogical)
    if (keys.length > 1)
      flag(logical, `one call executed under ${keys.length} idempotency keys: ${keys.join(', ')}`);

  // Every completed run's ungated tools ran once; every gated call was decided exactly once.
  const tagOf = new Map(runs.map((run) => [run.tag, run]));
  const expectEffect = (run: PlannedRun, tool: string) => {
    if (!byLogical.has(`${run.tag}/${tool}`))
      flag(run.runId, `completed, but its ${tool} call has no effect`);
  };
  let approvedCalls = 0;
  let declinedCalls = 0;
  for (const run of completed) {
    if (run.kind === 'stream') expectEffect(run, 'note');
    if (run.kind === 'slow' || run.kind === 'combo') expectEffect(run, 'slow-effect');
    if (!run.call) continue;
    if (!audits.has(run.runId)) {
      flag(run.runId, 'its audit trail could not be read (the query replays the run)');
      continue;
    }
    const key = `${run.runId}:${run.call.toolCallId}`;
    const applied = appliedDecisions(audits.get(run.runId) ?? [], run.call.toolCallId);
    if (applied.length !== 1) {
      flag(run.runId, `${applied.length} decisions applied to ${run.call.toolCallId}`);
      continue;
    }
    const decision = applied[0]!.decision;
    if (decision === 'approved') {
      approvedCalls++;
      if ((effectsByKey.get(key) ?? 0) !== 1)
        flag(run.runId, `approved ${key}, effect executed ${effectsByKey.get(key) ?? 0} times`);
    } else {
      declinedCalls++;
      if ((startsByKey.get(key) ?? 0) > 0)
        flag(run.runId, `declined ${key}, but the tool started ${startsByKey.get(key)} times`);
    }
  }
  // Effects of runs the harness does not know, or of gated calls it never saw decided.
  for (const line of journal.filter((l) => l.event === 'effect')) {
    if (!tagOf.has(line.tag!)) flag(line.key!, `effect of an unknown run tag ${line.tag}`);
  }

  // What callers were told against what the audit trail says.
  const attempts = runs.flatMap((run) => run.attempts);
  for (const attempt of attempts) {
    if (attempt.audit === undefined) continue; // no audit trail: flagged above
    const where = `${attempt.kind} by ${attempt.who} on ${attempt.toolCallId}`;
    if (attempt.said === 'accepted' && attempt.audit !== 'applied')
      flag(
        attempt.runId,
        `${where}: the caller was told it was applied; the audit says ${attempt.audit}`,
      );
    if (attempt.said === 'refused' && attempt.audit === 'applied')
      flag(attempt.runId, `${where}: refused (${attempt.code}) to the caller, yet applied`);
    if (attempt.said === 'sent' && attempt.audit === 'absent')
      flag(attempt.runId, `${where}: a delivered signal left no trace in the audit trail`);
    if (attempt.kind === 'update-stale' && attempt.audit === 'applied')
      flag(attempt.runId, `${where}: a stale fingerprint was applied`);
  }

  const retriedKeys = [...startsByKey].filter(([, starts]) => starts > 1);
  const odd = attempts.filter(
    (a) => a.said === 'refused' && !EXPECTED_REFUSALS.includes(a.code ?? ''),
  );
  const errors = attempts.filter((a) => a.said === 'error');
  const lines = [
    `runs: planned ${runs.length}, started ${started.length}, completed ${completed.length}, ` +
      `closed otherwise ${closedOtherwise.length}, lost ${lost.length}` +
      (runs.length > started.length ? ` (never started: ${runs.length - started.length})` : ''),
    `runs by kind: ${kindCounts(started)}`,
    `tool effects: ${[...effectsByKey.values()].reduce((a, b) => a + b, 0)} over ${effectsByKey.size} idempotency keys; ` +
      `executed twice: ${duplicateKeys.length} by key, ${duplicateLogical.length} by call`,
    `tool executions started more than once (retries after kills, absorbed by the idempotency key): ` +
      `${retriedKeys.length} calls, ${retriedKeys.reduce((sum, [, n]) => sum + n - 1, 0)} extra starts, ` +
      `${journal.filter((l) => l.event === 'effect-skipped').length} effects skipped as already done`,
    `gated calls decided: ${approvedCalls + declinedCalls} (approved ${approvedCalls}, declined ${declinedCalls}); ` +
      `each decided exactly once: ${violations.some((v) => / decisions applied to /.test(v)) ? 'NO' : 'yes'}`,
    ...decisionTable(attempts),
    ...(odd.length > 0
      ? [
          `refusals no race explains (the caller was told something other than ${EXPECTED_REFUSALS.join(', ')}):`,
          ...odd.map(
            (a) =>
              `  ${a.kind} by ${a.who} on ${a.runId}/${a.toolCallId} at ${clock(a.answeredAt)}: ${a.code}: ${a.error} (audit: ${a.audit})`,
          ),
        ]
      : []),
    ...(errors.length > 0
      ? [
          `decisions that got an error instead of an answer (server restarting, timeouts):`,
          ...errors.map(
            (a) =>
              `  ${a.kind} by ${a.who} on ${a.runId}: ${a.error?.slice(0, 160)} (audit: ${a.audit})`,
          ),
        ]
      : []),
  ];
  return {
    started: started.length,
    completed: completed.length,
    closedOtherwise,
    lost,
    notStarted: runs.filter((run) => !run.started),
    duplicateKeys,
    duplicateLogical,
    violations,
    suspects,
    lines,
  };
}

function decisionTable(attempts: Attempt[]): string[] {
  const lines = [
    `decisions: ${attempts.length} sent; by kind: sent / applied / refused (codes) / not delivered`,
  ];
  for (const kind of Object.keys(ATTEMPT_KINDS) as AttemptKind[]) {
    const mine = attempts.filter((a) => a.kind === kind);
    if (mine.length === 0) continue;
    const applied = mine.filter((a) => a.audit === 'applied');
    const refused = mine.filter(
      (a) => a.audit !== 'applied' && (a.said === 'refused' || a.audit === 'refused'),
    );
    const undelivered = mine.filter((a) => a.said === 'error' && a.audit === 'absent');
    const codes = countBy(refused, (a) => a.code ?? a.auditCode ?? '?');
    const appliedDespiteError = applied.filter((a) => a.said === 'error').length;
    lines.push(
      `  ${ATTEMPT_KINDS[kind]}: ${mine.length} / ${applied.length} / ${refused.length}` +
        (codes.size > 0 ? ` (${[...codes].map(([code, n]) => `${code} ${n}`).join(', ')})` : '') +
        ` / ${undelivered.length}` +
        (appliedDespiteError > 0
          ? `; ${appliedDespiteError} applied though the caller got an error`
          : ''),
    );
  }
  return lines;
}

export function chaosLines(cluster: FaultCluster): string[] {
  const kills = cluster.kills;
  const during = (test: (k: (typeof kills)[number]) => boolean) => kills.filter(test).length;
  const ready = cluster.readyMs;
  return [
    `worker kills (SIGKILL): ${kills.length}; landed during a model turn ${during((k) => k.inFlight.models.length > 0)}, ` +
      `during a tool execution ${during((k) => k.inFlight.tools.length > 0)}, ` +
      `with nothing in flight (only parked/cached runs) ${during((k) => k.inFlight.models.length + k.inFlight.tools.length === 0)}; ` +
      `runs parked on a decision at the kills: ${kills.reduce((sum, k) => sum + k.parkedRuns, 0)} in all`,
    `workers that died or stopped polling by themselves (each replaced): ${cluster.failures.length}` +
      cluster.failures
        .map(
          (f) =>
            `\n    ${f.worker} (pid ${f.pid}) ${f.how}: ${f.output.replace(/\s+/g, ' ').slice(0, 400)}`,
        )
        .join(''),
    `worker (re)starts to READY: ${ready.length} starts, median ${ready.length ? seconds(median(ready)) : '-'}, max ${ready.length ? seconds(Math.max(...ready)) : '-'}`,
    `Temporal server restarts: ${cluster.restarts.filter((r) => r.reason === 'planned').length} planned ` +
      `(${
        cluster.restarts
          .filter((r) => r.reason === 'planned')
          .map((r) => `stopped at ${clock(r.at)}, down ${seconds(r.downMs)}`)
          .join('; ') || '-'
      })` +
      unplanned(cluster),
  ];
}

function unplanned(cluster: FaultCluster): string {
  const stuck = cluster.restarts.filter((r) => r.reason !== 'planned');
  return stuck.length === 0
    ? '; the dev server never got stuck'
    : `; ${stuck.length} more by the watchdog, the dev server being stuck (${stuck.map((r) => `${r.reason}, down ${seconds(r.downMs)}`).join('; ')})`;
}

/** The last events of a run's history, for the report of a lost or misbehaving run. */
export async function historyExcerpt(client: Client, runId: string, last = 25): Promise<string[]> {
  try {
    const history = await client.workflow.getHandle(runId).fetchHistory();
    const events = history.events ?? [];
    return events.slice(-last).map((event) => {
      const attributes = Object.entries(event).find(
        ([key, value]) => key.endsWith('EventAttributes') && value,
      );
      const name = attributes?.[0].replace(/EventAttributes$/, '') ?? 'unknown';
      const value = attributes?.[1] as Record<string, unknown> | undefined;
      const activity = (value?.activityType as { name?: string } | undefined)?.name;
      const signal = value?.signalName as string | undefined;
      const extra = [
        activity,
        signal,
        value?.attempt !== undefined ? `attempt ${String(value.attempt)}` : '',
      ]
        .filter(Boolean)
        .join(' ');
      return `    #${String(event.eventId)} ${name}${extra ? ` (${extra})` : ''}`;
    });
  } catch (error) {
    return [`    (history unavailable: ${String(error)})`];
  }
}

function clock(at: number | undefined): string {
  return at === undefined ? '?' : new Date(at).toISOString().slice(11, 23);
}

function countBy<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

function kindCounts(runs: PlannedRun[]): string {
  return [...countBy(runs, (run) => `${run.kind} (${run.via})`)]
    .sort()
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
}

/** An error and its causes on one line, with gRPC status codes: `ServiceError: … ← 4 DEADLINE_EXCEEDED: …`. */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error) {
      const code = (current as { code?: unknown }).code;
      parts.push(
        `${current.name}${code !== undefined ? ` (code ${String(code)})` : ''}: ${current.message}`,
      );
      current = current.cause;
    } else {
      parts.push(String(current));
      current = undefined;
    }
  }
  return parts.join(' ← ').slice(0, 500);
}
