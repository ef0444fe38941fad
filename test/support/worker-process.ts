/**
 * A worker in its own process, for tests that kill it (`test/worker-kill.test.ts`). Every process
 * started from this file hosts the same agent, `restart-agent`, on `TASK_QUEUE`, and appends what
 * its tools and model do to `EFFECTS_FILE` (one JSON object a line), so the test can count side
 * effects across processes. Tells the parent (over IPC) once the worker polls; SIGTERM shuts it
 * down.
 *
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, EFFECTS_FILE.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import { hostAgentInChild } from '../../bench/support/child.js';
import { Agent, createTool } from '../../src/index.js';
import { scriptedModel, type TurnPicker } from '../../src/testing/index.js';

const AGENT_ID = 'restart-agent';

/** One line of the effects file. */
export interface EffectLine {
  event: 'started' | 'effect' | 'model';
  pid: number;
  tool?: string;
  key?: string;
  turn?: string;
  at: number;
}

const effectsFile = process.env.EFFECTS_FILE ?? '';
if (!effectsFile) throw new Error('worker-process: EFFECTS_FILE is not set.');

// The test reads this process's output only when something goes wrong: keep warnings and errors.
Runtime.install({ logger: new DefaultLogger('WARN') });

function record(line: Omit<EffectLine, 'pid' | 'at'>): void {
  appendFileSync(effectsFile, JSON.stringify({ ...line, pid: process.pid, at: Date.now() }) + '\n');
}

/** Performs the tool's effect unless a line of the file says it already happened for `key`. */
function effectOnce(tool: string, key: string): boolean {
  const done = readFileSync(effectsFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .some((line) => {
      const parsed = JSON.parse(line) as EffectLine;
      return parsed.event === 'effect' && parsed.key === key;
    });
  if (!done) record({ event: 'effect', tool, key });
  return !done;
}

const slowEffect = createTool({
  id: 'slow-effect',
  description: 'Applies an effect that takes a few seconds',
  inputSchema: z.object({ id: z.string() }),
  // Short, so a retry follows the kill within seconds instead of the default 30 s; not shorter:
  // heartbeats reach the server every 80 % of it, and a loaded machine's stalls eat the rest.
  heartbeatTimeoutMs: 10_000,
  retry: { maximumAttempts: 3, initialIntervalMs: 500 },
  execute: async ({ id }, { idempotencyKey, abortSignal }) => {
    record({ event: 'started', tool: 'slow-effect', key: idempotencyKey });
    await sleep(3000, undefined, { signal: abortSignal });
    return { id, applied: effectOnce('slow-effect', idempotencyKey) };
  },
});

const deleteRecord = createTool({
  id: 'delete-record',
  description: 'Deletes a record by id',
  inputSchema: z.object({ id: z.string() }),
  requireApproval: true,
  execute: async ({ id }, { idempotencyKey }) => {
    record({ event: 'started', tool: 'delete-record', key: idempotencyKey });
    return { id, deleted: effectOnce('delete-record', idempotencyKey) };
  },
});

/** Streams over about 8 s (8 pieces, 1 s apart), so a kill can land in the middle. */
const STORY_PIECES = [
  'Once ',
  'upon ',
  'a ',
  'time ',
  'a ',
  'worker ',
  'died; ',
  'another finished the story.',
];

/** Replies by what was asked, so every process answers the same prompt the same way. */
const byPrompt: TurnPicker = (prompt) => {
  const last = prompt.at(-1);
  if (last?.role === 'tool') {
    const toolName = last.content.find((part) => part.type === 'tool-result')?.toolName;
    record({ event: 'model', turn: `after ${toolName}` });
    return { text: toolName === 'delete-record' ? 'Record rec-1 deleted.' : 'Effect applied.' };
  }
  const text = JSON.stringify(last?.content ?? '');
  if (text.includes('delete')) {
    record({ event: 'model', turn: 'delete' });
    return { toolCalls: [{ toolName: 'delete-record', args: { id: 'rec-1' } }] };
  }
  if (text.includes('effect')) {
    record({ event: 'model', turn: 'effect' });
    return { toolCalls: [{ toolName: 'slow-effect', args: { id: 'fx-1' } }] };
  }
  if (text.includes('story')) {
    record({ event: 'model', turn: 'story' });
    // About 8 s in all: run 2 must reach its tool on worker A while this still streams.
    return { text: STORY_PIECES, delayMs: 1000 };
  }
  record({ event: 'model', turn: 'other' });
  return { text: 'Nothing to do.' };
};

const agent = new Agent({
  id: AGENT_ID,
  instructions: 'You are a test agent whose worker gets killed.',
  model: scriptedModel(byPrompt, AGENT_ID),
  // Keyed by id: the model calls the tools by their ids (SPEC §1 "Tool names": keys are names).
  tools: { 'slow-effect': slowEffect, 'delete-record': deleteRecord },
  // As the slow tool's: a retry after the kill within seconds, with room for a loaded machine.
  modelStep: { heartbeatTimeoutMs: 10_000 },
});

await hostAgentInChild('worker-process', agent);
