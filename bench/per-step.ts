/**
 * Measurement 1: what a model step costs through Tollgate (workflow task, model-step activity,
 * tool activity, history writes, client tail) against the same loop run by the AI SDK in-process.
 */
import { stepCountIs, streamText, tool as aiTool, type LanguageModel, type ToolSet } from 'ai';
import { z } from 'zod';
import { Agent, createTool, type Tollgate } from '../src/index.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import { loopPicker, loopPrompt } from './bench-model.js';
import { cpuDuring, type CpuSample } from './cpu.js';
import { expectThat, median, progress, timed } from './stats.js';

export const PER_STEP_AGENT_ID = 'bench-per-step';
/** The same loop in local execution mode: its ungated lookups stretch (docs/local-execution.md). */
export const LOCAL_PER_STEP_AGENT_ID = 'bench-per-step-local';
const TOOL_NAME = 'lookup';
const INSTRUCTIONS = 'You are a benchmark agent.';
const DESCRIPTION = 'Looks up the item of a step.';
const inputSchema = z.object({ step: z.number() });

/** Tool executions, counted across both runners for the sanity checks. */
let executions = 0;

function lookup(input: { step: number }): { step: number; item: string } {
  executions++;
  return { step: input.step, item: `item-${input.step}` };
}

/** The agent Tollgate runs; the in-process runner uses an identical model and tool. */
export function perStepAgent(): Agent {
  return loopAgent(PER_STEP_AGENT_ID, false);
}

/** `perStepAgent` with local model steps and a `local: true` (ungated) lookup. */
export function localPerStepAgent(): Agent {
  return loopAgent(LOCAL_PER_STEP_AGENT_ID, true);
}

function loopAgent(id: string, local: boolean): Agent {
  return new Agent({
    id,
    instructions: INSTRUCTIONS,
    model: scriptedModel(loopPicker({ toolName: TOOL_NAME }), id),
    tools: {
      [TOOL_NAME]: createTool({
        id: TOOL_NAME,
        description: DESCRIPTION,
        inputSchema,
        execute: lookup,
        ...(local ? { local: true } : {}),
      }),
    },
    ...(local ? { execution: { modelSteps: 'local' as const } } : {}),
  });
}

export interface PerStepOptions {
  /** Model steps per run (N): N-1 tool calls, then a text answer. */
  steps: number;
  runs: number;
  warmups: number;
}

/** Median wall time of one run, for runs of `steps` and of one step. */
export interface RunnerTimes {
  runMs: number;
  oneStepRunMs: number;
  /** CPU used over all measured runs of `steps` (this process, and the dev server). */
  cpu: CpuSample;
}

export interface PerStepResult {
  options: PerStepOptions;
  inProcess: RunnerTimes;
  tollgate: RunnerTimes;
}

export type Runner = (steps: number) => Promise<void>;

/** One Tollgate run of `steps` model steps through `generate()`, checked. */
export function tollgateRunner(tollgate: Tollgate, agentId = PER_STEP_AGENT_ID): Runner {
  const agent = tollgate.getAgent(agentId);
  return async (steps) => {
    const before = executions;
    const output = await agent.generate(loopPrompt(steps), { maxSteps: steps });
    expectThat(
      output.finishReason === 'stop',
      `Tollgate run ${output.runId} finished with ${output.finishReason} ${output.error ?? ''}`,
    );
    expectThat(
      output.steps.length === steps,
      `Tollgate run had ${output.steps.length} steps, not ${steps}`,
    );
    expectThat(
      executions - before === steps - 1,
      `Tollgate run executed the tool ${executions - before} times, not ${steps - 1}`,
    );
  };
}

/** The AI SDK's own loop in this process (`streamText` + `execute`): the reference figure. */
export function measureInProcess(serverPid: number, options: PerStepOptions): Promise<RunnerTimes> {
  progress(`per-step: in-process AI SDK, ${options.runs} runs of ${options.steps} steps`);
  return timeRunner(inProcessRunner(), serverPid, options);
}

export async function measurePerStep(
  tollgate: Tollgate,
  serverPid: number,
  options: PerStepOptions,
): Promise<PerStepResult> {
  const inProcessTimes = await measureInProcess(serverPid, options);
  progress(`per-step: Tollgate, ${options.runs} runs of ${options.steps} steps`);
  const tollgateTimes = await timeRunner(tollgateRunner(tollgate), serverPid, options);
  return { options, inProcess: inProcessTimes, tollgate: tollgateTimes };
}

async function timeRunner(
  run: Runner,
  serverPid: number,
  options: PerStepOptions,
): Promise<RunnerTimes> {
  for (let i = 0; i < options.warmups; i++) await run(options.steps);
  const full: number[] = [];
  const cpu = await cpuDuring(serverPid, async () => {
    for (let i = 0; i < options.runs; i++) full.push((await timed(() => run(options.steps))).ms);
  });
  const single: number[] = [];
  for (let i = 0; i < options.runs; i++) single.push((await timed(() => run(1))).ms);
  return { runMs: median(full), oneStepRunMs: median(single), cpu };
}

/** The same loop through `streamText` alone: tools with `execute`, stopping after N steps. */
export function inProcessRunner(): Runner {
  const model: LanguageModel = scriptedModel(
    loopPicker({ toolName: TOOL_NAME }),
    'bench-in-process',
  );
  const tools: ToolSet = {
    [TOOL_NAME]: aiTool({
      description: DESCRIPTION,
      inputSchema,
      execute: async (input: { step: number }) => lookup(input),
    }),
  };
  return async (steps) => {
    const before = executions;
    const result = streamText({
      model,
      system: INSTRUCTIONS,
      prompt: loopPrompt(steps),
      tools,
      stopWhen: stepCountIs(steps),
      maxRetries: 0,
    });
    // Read every part, as Tollgate's client reads every chunk.
    for await (const part of result.fullStream) {
      if (part.type === 'error')
        throw part.error instanceof Error ? part.error : new Error(String(part.error));
    }
    const stepResults = await result.steps;
    expectThat(
      stepResults.length === steps,
      `in-process run had ${stepResults.length} steps, not ${steps}`,
    );
    expectThat(
      executions - before === steps - 1,
      `in-process run executed the tool ${executions - before} times, not ${steps - 1}`,
    );
  };
}
