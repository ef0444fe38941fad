/**
 * The agent the fault workers host. Its scripted model reads what to do from the prompt,
 * `fault-run <tag> <kind>`, so every worker process answers a run the same way:
 *
 * - `gated`:  step 1 asks for `delete-record` (needs approval); step 2 says what happened.
 * - `stream`: step 1 streams slowly (8 pieces, 400 ms apart) and calls the quick `note` tool;
 *             step 2 streams slowly again.
 * - `slow`:   step 1 calls `slow-effect` (3 s, heartbeating); step 2 answers.
 * - `combo`:  step 1 streams for ~2 s and calls `delete-record` and `slow-effect` together.
 *
 * Tool call ids are the model's own (`call_<n>`, counted per process), as a real model's are:
 * a retried model step on another worker names its calls differently, and only the recorded
 * step counts. Every tool journals `started`, `effect` (once per idempotency key) and `finished`.
 */
import { Context } from '@temporalio/activity';
import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { Agent, createTool, type ToolExecutionContext } from '../../src/index.js';
import { scriptedModel, type ScriptedTurn, type TurnPicker } from '../../src/testing/index.js';
import type { Journal } from './journal.js';

export const FAULT_AGENT_ID = 'fault-agent';
export const RUN_KINDS = ['gated', 'stream', 'slow', 'combo'] as const;
export type RunKind = (typeof RUN_KINDS)[number];
export const GATED_TOOL = 'delete-record';

export function faultPrompt(tag: string, kind: RunKind): string {
  return `fault-run ${tag} ${kind}: do your part.`;
}

const PROMPT = /fault-run ([\w-]+) (gated|stream|slow|combo)/;
const SLOW_PIECES = ['The ', 'run ', 'goes ', 'on ', 'through ', 'faults ', 'and ', 'restarts. '];

type Prompt = Parameters<TurnPicker>[0];

function whoAsked(prompt: Prompt): { tag: string; kind: RunKind } {
  const user = prompt.find((message) => message.role === 'user');
  const match = PROMPT.exec(JSON.stringify(user?.content ?? ''));
  if (!match)
    throw new Error(`fault agent: a prompt without a fault-run tag: ${JSON.stringify(user)}`);
  return { tag: match[1]!, kind: match[2] as RunKind };
}

function stepOf(prompt: Prompt): number {
  return prompt.filter((message) => message.role === 'tool').length + 1;
}

function turnFor(kind: RunKind, tag: string, step: number): ScriptedTurn {
  if (step >= 2) {
    return kind === 'stream'
      ? { text: [...SLOW_PIECES, `Done with ${tag}.`], delayMs: 400 }
      : { text: `Done with ${tag}.` };
  }
  switch (kind) {
    case 'gated':
      return { text: 'Asking first.', toolCalls: [{ toolName: GATED_TOOL, args: { id: tag } }] };
    case 'stream':
      return {
        text: SLOW_PIECES,
        delayMs: 400,
        toolCalls: [{ toolName: 'note', args: { id: tag } }],
      };
    case 'slow':
      return { toolCalls: [{ toolName: 'slow-effect', args: { id: tag } }] };
    case 'combo':
      return {
        text: SLOW_PIECES.slice(0, 5),
        delayMs: 400,
        toolCalls: [
          { toolName: GATED_TOOL, args: { id: tag } },
          { toolName: 'slow-effect', args: { id: tag } },
        ],
      };
  }
}

/** The scripted model, journaling when each turn starts and when its stream ends. */
function faultModel(journal: Journal): LanguageModelV4 {
  const turns = new WeakMap<Prompt, { tag: string; step: number }>();
  const picker: TurnPicker = (prompt) => {
    const { tag, kind } = whoAsked(prompt);
    const step = stepOf(prompt);
    turns.set(prompt, { tag, step });
    journal.record({ event: 'model-start', tag, step });
    return turnFor(kind, tag, step);
  };
  const inner = scriptedModel(picker, FAULT_AGENT_ID);
  return {
    ...inner,
    async doStream(options) {
      const result = await inner.doStream(options);
      const turn = turns.get(options.prompt);
      const ended = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        flush: () => journal.record({ event: 'model-end', ...turn }),
      });
      return { ...result, stream: result.stream.pipeThrough(ended) };
    },
  };
}

const idInput = z.object({ id: z.string() });

function attempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 0;
  }
}

/** A tool body that journals its start, its effect (once per key) and its end. */
function effectTool(journal: Journal, tool: string, work: (signal: AbortSignal) => Promise<void>) {
  return async ({ id }: { id: string }, context: ToolExecutionContext) => {
    const line = {
      tag: id,
      run: context.agent.runId,
      tool,
      key: context.idempotencyKey,
      logical: `${id}/${tool}`,
      attempt: attempt(),
    };
    journal.record({ ...line, event: 'started' });
    await work(context.abortSignal);
    const applied = journal.effectOnce(line);
    journal.record({ ...line, event: 'finished' });
    return { id, tool, applied };
  };
}

/** Retries for a world where workers die every few seconds; failures would show as tool errors. */
const RETRY = { maximumAttempts: 25, initialIntervalMs: 500 };

export function faultAgent(journal: Journal): Agent {
  const deleteRecord = createTool({
    id: GATED_TOOL,
    description: 'Deletes a record; needs approval',
    inputSchema: idInput,
    requireApproval: true,
    heartbeatTimeoutMs: 2000,
    retry: RETRY,
    execute: effectTool(journal, GATED_TOOL, async () => undefined),
  });
  const slowEffect = createTool({
    id: 'slow-effect',
    description: 'Applies an effect that takes 3 s',
    inputSchema: idInput,
    heartbeatTimeoutMs: 2000,
    retry: RETRY,
    execute: effectTool(journal, 'slow-effect', (signal) => sleep(3000, undefined, { signal })),
  });
  const note = createTool({
    id: 'note',
    description: 'Notes something quickly',
    inputSchema: idInput,
    heartbeatTimeoutMs: 2000,
    retry: RETRY,
    execute: effectTool(journal, 'note', async () => undefined),
  });
  return new Agent({
    id: FAULT_AGENT_ID,
    instructions: 'You are the agent of the fault benchmark.',
    model: faultModel(journal),
    tools: { [GATED_TOOL]: deleteRecord, 'slow-effect': slowEffect, note },
    modelStep: { heartbeatTimeoutMs: 2000, maximumAttempts: 25 },
  });
}
