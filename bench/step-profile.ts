/**
 * Where a step's time goes (on demand, not a test): on a tuned dev server, runs the per-step agent
 * (10 steps: model step + ungated tool) and a gated agent, then reads every run's history and
 * reports the server-side time of each workflow task (WorkflowTaskStarted → WorkflowTaskCompleted),
 * the number of workflow tasks per step, wall time per step, generate() until a gated run has
 * parked, and approve → tool start / finish.
 * With `--local 1` it also runs both agents in local execution mode (the per-step one is
 * `localPerStepAgent()`, whose ungated local lookups stretch) and the same loop by the AI SDK
 * in-process, the reference a stretch is held to. Run the worker under
 * `--cpu-prof` to see where a workflow task's time goes:
 *
 *   npm run build && node --cpu-prof --cpu-prof-dir=/tmp/prof dist/bench/step-profile.js
 *
 * Options: --runs 20 --steps 10 --approvals 30 --local 1 --tuned 1
 */
import './quiet-runtime.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { temporal } from '@temporalio/proto';
import { Agent, createTool, startDevServer, Tollgate, findTemporalCli } from '../src/index.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import { gatedLookupAgent } from './approval-latency.js';
import { loopPicker, loopPrompt } from './bench-model.js';
import { inProcessRunner, LOCAL_PER_STEP_AGENT_ID, localPerStepAgent } from './per-step.js';
import { parseIntOptions } from './support/args.js';
import { loadAverage } from './support/system.js';
import { expectThat, median, progress, quantile } from './stats.js';

const options = parseIntOptions('step-profile', process.argv.slice(2), {
  runs: { default: 20, min: 1, max: 1000, help: 'measured runs of the per-step agent' },
  steps: { default: 10, min: 2, max: 50, help: 'model steps per run' },
  approvals: { default: 30, min: 1, max: 1000, help: 'measured approvals' },
  local: { default: 1, min: 0, max: 1, help: '1: also measure local execution mode' },
  tuned: { default: 1, min: 0, max: 1, help: '1: the tuned server settings of issue 14' },
});

/** The settings of issue 14 (finding 1). */
export const TUNED_DYNAMIC_CONFIG = {
  'system.enableActivityEagerExecution': true,
  'history.transferProcessorMaxPollRPS': 2000,
};

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const TOOL = 'lookup';
const toolStarts = new Map<string, number>();

function stepAgent(id: string, local: boolean): Agent {
  // `local` is set only where the running code knows it, so the script also runs on older trees.
  const lookup = createTool({
    id: TOOL,
    description: 'Looks up the item of a step.',
    inputSchema: z.object({ step: z.number() }),
    execute: (input: { step: number }) => ({ step: input.step, item: `item-${input.step}` }),
    ...(local ? { local: true } : {}),
  } as Parameters<typeof createTool>[0]);
  return new Agent({
    id,
    instructions: 'You are a benchmark agent.',
    model: scriptedModel(loopPicker({ toolName: TOOL }), id),
    tools: { [TOOL]: lookup },
    ...(local ? { execution: { modelSteps: 'local' } } : {}),
  } as ConstructorParameters<typeof Agent>[0]);
}

interface TaskTimes {
  /** WorkflowTaskStarted → WorkflowTaskCompleted, ms. */
  started: number[];
  /** WorkflowTaskScheduled → WorkflowTaskStarted, ms. */
  queued: number[];
  tasks: number;
  events: number;
  markers: number;
  /** UpsertWorkflowSearchAttributes events: Tollgate's status and Temporal's patch versions. */
  upserts: number;
}

function millis(event: HistoryEvent): number {
  const time = event.eventTime!;
  return Number(time.seconds) * 1000 + (time.nanos ?? 0) / 1e6;
}

function taskTimes(histories: HistoryEvent[][]): TaskTimes {
  const times: TaskTimes = {
    started: [],
    queued: [],
    tasks: 0,
    events: 0,
    markers: 0,
    upserts: 0,
  };
  for (const events of histories) {
    times.events += events.length;
    const byId = new Map(events.map((event) => [String(event.eventId), event]));
    for (const event of events) {
      if (event.markerRecordedEventAttributes?.markerName === 'core_local_activity')
        times.markers++;
      if (event.upsertWorkflowSearchAttributesEventAttributes) times.upserts++;
      const done = event.workflowTaskCompletedEventAttributes;
      if (!done) continue;
      times.tasks++;
      const started = byId.get(String(done.startedEventId));
      const scheduled = byId.get(String(done.scheduledEventId));
      if (started) times.started.push(millis(event) - millis(started));
      if (started && scheduled) times.queued.push(millis(started) - millis(scheduled));
    }
  }
  return times;
}

const fmt = (value: number) => `${value.toFixed(1)} ms`;

async function histories(tollgate: Tollgate, runIds: string[]): Promise<HistoryEvent[][]> {
  const client = await tollgate.client();
  return Promise.all(
    runIds.map(async (id) => (await client.workflow.getHandle(id).fetchHistory()).events ?? []),
  );
}

async function perStep(tollgate: Tollgate, agentId: string, label: string): Promise<string[]> {
  const agent = tollgate.getAgent(agentId);
  const run = async (steps = options.steps) => {
    const output = await agent.generate(loopPrompt(steps), { maxSteps: steps });
    expectThat(output.finishReason === 'stop', `${output.runId} ended ${output.finishReason}`);
    expectThat(output.steps.length === steps, `${output.runId}: wrong step count`);
    return output.runId;
  };
  await run();
  const walls: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < options.runs; i++) {
    const started = performance.now();
    ids.push(await run());
    walls.push(performance.now() - started);
  }
  // What a step adds to a run, without the run's own start and end.
  const single: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    const started = performance.now();
    await run(1);
    single.push(performance.now() - started);
  }
  const added = (median(walls) - median(single)) / (options.steps - 1);
  const times = taskTimes(await histories(tollgate, ids));
  const perRun = (n: number) => (n / options.runs).toFixed(1);
  return [
    `${label}: per step ${fmt(median(walls) / options.steps)} (run of ${options.steps} steps p50 ${fmt(median(walls))}); a step adds ${fmt(added)} (1-step run p50 ${fmt(median(single))})`,
    `  workflow tasks per run ${perRun(times.tasks)}, events per run ${perRun(times.events)}, upserts per run ${perRun(times.upserts)}, local-activity markers per run ${perRun(times.markers)}`,
    `  workflow task started → completed p50 ${fmt(median(times.started))}, p90 ${fmt(quantile(times.started, 0.9))}; scheduled → started p50 ${fmt(median(times.queued))}`,
  ];
}

/** The same loop by the AI SDK alone, in this process: the reference a stretch is held to. */
async function inProcess(): Promise<string> {
  const run = inProcessRunner();
  await run(options.steps);
  const time = async (steps: number) => {
    const walls: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      const started = performance.now();
      await run(steps);
      walls.push(performance.now() - started);
    }
    return median(walls);
  };
  const full = await time(options.steps);
  const single = await time(1);
  const added = (full - single) / (options.steps - 1);
  return `AI SDK in-process loop: per step ${fmt(full / options.steps)} (run of ${options.steps} steps p50 ${fmt(full)}); a step adds ${fmt(added)} (1-step run p50 ${fmt(single)})`;
}

async function approvals(tollgate: Tollgate, agentId: string, label: string): Promise<string[]> {
  const agent = tollgate.getAgent(agentId);
  const toParked: number[] = [];
  const toStart: number[] = [];
  const toEnd: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < options.approvals + 2; i++) {
    const startedAt = performance.now();
    const first = await agent.generate('Please run the gated lookup.');
    const parkedAt = performance.now();
    expectThat(first.finishReason === 'suspended', `${first.runId} did not park`);
    const approvedAt = performance.now();
    const stream = await agent.approveToolCall({ runId: first.runId });
    for await (const chunk of stream.fullStream) void chunk;
    const end = performance.now();
    expectThat((await stream.finishReason) === 'stop', `${first.runId} did not finish`);
    if (i < 2) continue;
    toParked.push(parkedAt - startedAt);
    toStart.push(toolStarts.get(first.runId)! - approvedAt);
    toEnd.push(end - approvedAt);
    ids.push(first.runId);
  }
  const times = taskTimes(await histories(tollgate, ids));
  return [
    `${label}: generate() → parked p50 ${fmt(median(toParked))}, approve → tool start p50 ${fmt(median(toStart))}, approve → finish p50 ${fmt(median(toEnd))} (${options.approvals} runs)`,
    `  workflow tasks per run ${(times.tasks / ids.length).toFixed(1)}, events per run ${(times.events / ids.length).toFixed(1)}, upserts per run ${(times.upserts / ids.length).toFixed(1)}; started → completed p50 ${fmt(median(times.started))}`,
  ];
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-step-profile-'));
  const server = await startDevServer({
    cliPath: await findTemporalCli(),
    dbFile: join(dir, 'dev.db'),
    ...(options.tuned ? { dynamicConfig: TUNED_DYNAMIC_CONFIG } : {}),
  });
  const agents = [stepAgent('steps-remote', false), gatedLookupAgent('gated-remote', toolStarts)];
  if (options.local)
    agents.push(localPerStepAgent(), gatedLookupAgent('gated-local', toolStarts, true));
  const tollgate = new Tollgate({
    agents: Object.fromEntries(agents.map((agent) => [agent.id, agent])),
    temporal: { address: server.address, namespace: server.namespace, taskQueue: 'step-profile' },
  });
  const lines: string[] = [];
  try {
    await tollgate.startWorker();
    const before = loadAverage();
    progress('per step, remote');
    lines.push(...(await perStep(tollgate, 'steps-remote', 'remote')));
    if (options.local) {
      progress('per step, local');
      lines.push(...(await perStep(tollgate, LOCAL_PER_STEP_AGENT_ID, 'local (stretches)')));
      progress('per step, AI SDK in-process loop');
      lines.push(await inProcess());
    }
    progress('approvals');
    lines.push(...(await approvals(tollgate, 'gated-remote', 'approval, remote')));
    if (options.local)
      lines.push(...(await approvals(tollgate, 'gated-local', 'approval, local model steps')));
    lines.push(
      `server: ${options.tuned ? JSON.stringify(TUNED_DYNAMIC_CONFIG) : 'defaults'}; load before ${before}, after ${loadAverage()}`,
    );
    console.log(lines.join('\n'));
  } finally {
    await tollgate.shutdown();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
