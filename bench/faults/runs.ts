/**
 * The life of one run in the fault benchmark: start (through the Tollgate client or HTTP, retried
 * through server restarts with a fixed run id), wait for its gated call, race decisions on it,
 * settle it if no racer got through, and wait for the run to close. Every wait is bounded by the
 * benchmark's deadline.
 */
import type { Client } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  isTollgateError,
  type AgentClient,
  type AgentStream,
  type PendingToolCall,
} from '../../src/index.js';
import { isTollgateHttpError, type RemoteAgent } from '../../src/http-client/index.js';
import { within } from '../support/concurrency.js';
import { faultPrompt, GATED_TOOL, type RunKind } from './agent.js';
import { planRace, sendAttempt, type Attempt, type Deciders, type Scenario } from './decisions.js';
import { describeError } from './analysis.js';

export interface PlannedRun {
  index: number;
  runId: string;
  tag: string;
  kind: RunKind;
  via: 'client' | 'http';
  /** ms after the chaos began. */
  startAfterMs: number;
  scenario?: Scenario;
  /** ms between seeing the waiting call and sending the race. */
  decideAfterMs: number;
  phase: 'planned' | 'starting' | 'running' | 'parked' | 'deciding' | 'finishing' | 'closed';
  started: boolean;
  startAttempts: number;
  call?: PendingToolCall;
  attempts: Attempt[];
  /** Temporal's status name once closed (`COMPLETED`, `FAILED`, ...). */
  status?: string;
  /** `Date.now()` when the harness saw the run closed. */
  closedAt?: number;
  finishReason?: string;
  problems: string[];
}

export interface RunContext {
  agent: AgentClient;
  remote: RemoteAgent;
  client(): Promise<Client>;
  deciders: Deciders;
  random: () => number;
  /** `Date.now()` when the chaos began. */
  began: number;
  /** No new work (starts, races) after this; waits for closure go on until `deadline`. */
  chaosEnd: number;
  deadline: number;
  streams: {
    ended: number;
    broke: number;
    brokeBy: Map<string, number>;
    /** The first few errors, for the report. */
    samples: string[];
  };
}

const POLL_MS = 700;

export async function lifeOfRun(run: PlannedRun, context: RunContext): Promise<void> {
  await sleep(Math.max(0, context.began + run.startAfterMs - Date.now()));
  run.phase = 'starting';
  await start(run, context);
  if (!run.started) return;
  run.phase = 'running';
  if (run.kind === 'gated' || run.kind === 'combo') {
    const call = await waitForCall(run, context);
    if (call) {
      run.call = call;
      run.phase = 'parked';
      await sleep(Math.max(0, Math.min(run.decideAfterMs, context.deadline - Date.now())));
      run.phase = 'deciding';
      const specs = planRace(run.scenario!, context.random);
      run.attempts.push(
        ...(await Promise.all(
          specs.map((spec) => sendAttempt(context.deciders, spec, run.runId, call, 30_000)),
        )),
      );
      await settle(run, call, context);
    }
  }
  run.phase = 'finishing';
  await waitClosed(run, context);
  run.phase = 'closed';
}

/** Starts the run, retrying through outages; a start that "already exists" did go through. */
async function start(run: PlannedRun, context: RunContext): Promise<void> {
  const prompt = faultPrompt(run.tag, run.kind);
  while (Date.now() < context.chaosEnd + 30_000) {
    run.startAttempts++;
    try {
      const stream =
        run.via === 'client'
          ? await within(context.agent.stream(prompt, { runId: run.runId }), 30_000, 'start')
          : await within(context.remote.stream(prompt, { runId: run.runId }), 30_000, 'start');
      run.started = true;
      followStream(stream, context);
      return;
    } catch (error) {
      const exists =
        (isTollgateError(error, 'INVALID_OPTIONS') || isTollgateHttpError(error)) &&
        /already exists/.test((error as Error).message);
      if (exists) {
        run.started = true;
        return;
      }
      if (await existing(run.runId, context)) {
        run.started = true;
        return;
      }
    }
    await sleep(1000);
  }
  run.problems.push(`never started after ${run.startAttempts} attempts`);
}

async function existing(runId: string, context: RunContext): Promise<boolean> {
  try {
    await within((await context.client()).workflow.getHandle(runId).describe(), 10_000, 'describe');
    return true;
  } catch {
    return false;
  }
}

/** Follows a stream to its end in the background, counting streams that broke. */
export function followStream(stream: AgentStream, context: RunContext, abort?: AbortController) {
  const bound = Math.max(1000, context.deadline - Date.now());
  within(stream.finishReason, bound, 'the stream')
    .then(
      () => context.streams.ended++,
      (error: unknown) => {
        context.streams.broke++;
        const name = isTollgateError(error)
          ? error.code
          : isTollgateHttpError(error)
            ? `HTTP ${error.code}`
            : error instanceof Error
              ? error.name
              : 'error';
        context.streams.brokeBy.set(name, (context.streams.brokeBy.get(name) ?? 0) + 1);
        if (context.streams.samples.length < 5) {
          context.streams.samples.push(`${name}: ${describeError(error)}`);
        }
      },
    )
    .finally(() => abort?.abort());
}

/** Polls the run until its gated call waits; undefined if the run closes first or time runs out. */
async function waitForCall(
  run: PlannedRun,
  context: RunContext,
): Promise<PendingToolCall | undefined> {
  const until = context.deadline - 20_000;
  for (let polls = 0; Date.now() < until; polls++) {
    try {
      const pending = await within(context.agent.pendingToolCalls(run.runId), 10_000, 'query');
      const call = pending.find((c) => c.toolName === GATED_TOOL && c.requiresApproval);
      if (call) return call;
    } catch {
      // The server restarts or no worker answers the query now: ask again.
    }
    if (polls % 5 === 4 && (await closedStatus(run.runId, context))) return undefined;
    await sleep(POLL_MS);
  }
  run.problems.push('its gated call never showed up in pendingToolCalls');
  return undefined;
}

/**
 * After a race, the call may still wait if every racer failed to get through (the server was
 * down). Then one update approves it. A call seen waiting twice in a row, 3 s apart, is settled.
 */
async function settle(run: PlannedRun, call: PendingToolCall, context: RunContext): Promise<void> {
  let seenWaiting = 0;
  for (let round = 0; round < 200 && Date.now() < context.deadline - 10_000; round++) {
    await sleep(3000);
    let waiting: boolean;
    try {
      const pending = await within(context.agent.pendingToolCalls(run.runId), 10_000, 'query');
      waiting = pending.some((c) => c.toolCallId === call.toolCallId);
    } catch {
      if (await closedStatus(run.runId, context)) return;
      continue;
    }
    if (!waiting) return;
    if (++seenWaiting < 2) continue;
    const spec = { kind: 'settle' as const, who: `settle-${round}` };
    run.attempts.push(await sendAttempt(context.deciders, spec, run.runId, call, 30_000));
    seenWaiting = 0;
  }
}

async function closedStatus(runId: string, context: RunContext): Promise<string | undefined> {
  try {
    const description = await within(
      (await context.client()).workflow.getHandle(runId).describe(),
      10_000,
      'describe',
    );
    return description.status.name === 'RUNNING' ? undefined : description.status.name;
  } catch {
    return undefined;
  }
}

/** Waits (bounded by the deadline) until the run is closed; keeps its status and finish reason. */
async function waitClosed(run: PlannedRun, context: RunContext): Promise<void> {
  while (Date.now() < context.deadline) {
    const status = await closedStatus(run.runId, context);
    if (status) {
      run.status = status;
      run.closedAt = Date.now();
      if (status === 'COMPLETED') {
        try {
          const handle = (await context.client()).workflow.getHandle(run.runId);
          const result = (await within(handle.result(), 20_000, 'result')) as {
            finishReason?: string;
          };
          run.finishReason = result.finishReason;
        } catch (error) {
          run.problems.push(`completed, but its result could not be read: ${String(error)}`);
        }
      }
      return;
    }
    await sleep(1000);
  }
}
