/**
 * A worker in its own process hosting `local-restart-agent`, whose model steps and read-only tool
 * run as local activities (`test/local-execution.test.ts` kills it mid-tool). Appends one JSON
 * line per model turn and tool start to `EFFECTS_FILE`.
 *
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, EFFECTS_FILE.
 */
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import { hostAgentInChild } from '../../bench/support/child.js';
import { Agent, createTool } from '../../src/index.js';
import { scriptedModel, type TurnPicker } from '../../src/testing/index.js';

const LOCAL_AGENT_ID = 'local-restart-agent';

/** One line of the effects file. */
export interface LocalEffectLine {
  event: 'started' | 'model';
  pid: number;
  key?: string;
  toolCallId?: string;
  turn?: string;
  at: number;
}

const effectsFile = process.env.EFFECTS_FILE ?? '';
if (!effectsFile) throw new Error('local-worker-process: EFFECTS_FILE is not set.');

Runtime.install({ logger: new DefaultLogger('WARN') });

function record(line: Omit<LocalEffectLine, 'pid' | 'at'>): void {
  appendFileSync(effectsFile, JSON.stringify({ ...line, pid: process.pid, at: Date.now() }) + '\n');
}

const slowLookup = createTool({
  id: 'slow-lookup',
  description: 'Looks a record up; takes a few seconds',
  inputSchema: z.object({ id: z.string() }),
  local: true,
  execute: async ({ id }, { idempotencyKey, agent }) => {
    record({ event: 'started', key: idempotencyKey, toolCallId: agent.toolCallId });
    await sleep(3000);
    return { id, found: true };
  },
});

/**
 * Each process numbers its tool calls from its own start, as a real provider would give a rerun
 * new ids: the idempotency key must not depend on them.
 */
let calls = 0;
const byPrompt: TurnPicker = (prompt) => {
  const last = prompt.at(-1);
  if (last?.role === 'tool') {
    record({ event: 'model', turn: 'after slow-lookup' });
    return { text: 'Found it.' };
  }
  record({ event: 'model', turn: 'lookup' });
  return {
    toolCalls: [
      { toolName: 'slow-lookup', args: { id: 'rec-1' }, toolCallId: `p${process.pid}-${++calls}` },
    ],
  };
};

const agent = new Agent({
  id: LOCAL_AGENT_ID,
  instructions: 'You are a test agent whose worker gets killed.',
  model: scriptedModel(byPrompt, LOCAL_AGENT_ID),
  tools: { 'slow-lookup': slowLookup },
  execution: { modelSteps: 'local' },
});

await hostAgentInChild('local-worker-process', agent);
