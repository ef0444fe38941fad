/**
 * The agents whose runs `record-history.ts` records (see `history-scenarios.ts`): scripted models
 * with fixed tool call ids, so every recording is reproducible, and tools that log each execution
 * so the scenarios can check what ran.
 */
import { z } from 'zod';
import { Agent, createTool, type ApprovalPolicy } from '../../src/index.js';
import { scriptedModel, type TurnPicker } from '../../src/testing/scripted-model.js';
import { testAgent } from './harness.js';

type Prompt = Parameters<TurnPicker>[0];

/** Tool executions since the last `forgetExecutions()`, by tool and `id` argument. */
const executed: Array<{ tool: string; id: string }> = [];

export function forgetExecutions(): void {
  executed.length = 0;
}

/** How often `tool` ran with `{ id }` since the last `forgetExecutions()`. */
export function ranTimes(tool: string, id: string): number {
  return executed.filter((e) => e.tool === tool && e.id === id).length;
}

function textOf(prompt: Prompt, index: number): string {
  return JSON.stringify(prompt.at(index)?.content ?? '');
}

function toolResults(prompt: Prompt): string[] {
  const last = prompt.at(-1);
  if (last?.role !== 'tool') return [];
  return last.content.map((part) => {
    const value = (part as { output: { value: unknown } }).output.value;
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** A gated tool, with optional `approval` rules, that records its executions. */
function governedTool(id: string, approval?: ApprovalPolicy) {
  return createTool({
    id,
    description: `Test tool ${id}`,
    inputSchema: z.object({ id: z.string() }),
    requireApproval: true,
    ...(approval ? { approval } : {}),
    execute: async (input: { id: string }) => {
      executed.push({ tool: id, id: input.id });
      return { done: input.id };
    },
  });
}

/**
 * The first recordings' agent: one gated call of its tool `deleteRecord` (id `delete-record`), two
 * when the prompt says "both". Generations before `3-tool-keys` named it by id.
 */
const pickDelete: TurnPicker = (prompt) => {
  if (prompt.at(-1)?.role === 'tool') return { text: 'Done.' };
  const said = JSON.stringify(prompt.find((message) => message.role === 'user')?.content ?? '');
  if (said.includes('both')) {
    return {
      text: 'Deleting both.',
      toolCalls: [
        { toolCallId: 'call_a', toolName: 'deleteRecord', args: { id: 'a' } },
        { toolCallId: 'call_b', toolName: 'deleteRecord', args: { id: 'b' } },
      ],
    };
  }
  return {
    text: 'Deleting it.',
    toolCalls: [{ toolCallId: 'call_1', toolName: 'deleteRecord', args: { id: 'r1' } }],
  };
};
const historyAgent = new Agent({
  id: 'history-agent',
  instructions: 'You are a test agent.',
  model: scriptedModel(pickDelete, 'history-agent'),
  tools: { deleteRecord: governedTool('delete-record') },
});

const weather = createTool({
  id: 'get-weather',
  inputSchema: z.object({ location: z.string().optional() }),
  suspendSchema: z.object({ question: z.string() }),
  resumeSchema: z.object({ city: z.string() }),
  execute: async (input, context) => {
    const city = context.agent.resumeData?.city ?? input.location;
    executed.push({ tool: 'get-weather', id: city ?? '(asked)' });
    if (!city) return await context.agent.suspend({ question: 'Which city?' });
    return { weather: `sunny in ${city}` };
  },
});
const weatherAgent = testAgent('history-weather', [weather], (prompt) =>
  prompt.at(-1)?.role === 'tool'
    ? { text: toolResults(prompt).join(' / ') }
    : { toolCalls: [{ toolCallId: 'call_weather', toolName: 'get-weather', args: {} }] },
).agent;

/** Hands "drop <id>" to `tool` with a fixed call id, then wraps what came back in `prefix[...]`. */
function delegating(prefix: string, tool: string, toolCallId: string): TurnPicker {
  return (prompt) => {
    const got = toolResults(prompt);
    if (got.length > 0) return { text: `${prefix}[${got.join(' + ')}]` };
    const id = /drop ([\w-]+)/.exec(textOf(prompt, -1))?.[1] ?? 'none';
    const args = tool.startsWith('agent-') ? { message: `drop ${id}` } : { id };
    return { toolCalls: [{ toolCallId, toolName: tool, args }] };
  };
}
/** The db agent's tool `dropTable` (id `drop-table`). */
const dropTable = governedTool('drop-table');
const dbAgent = new Agent({
  id: 'history-db',
  description: 'Drops tables',
  model: scriptedModel(delegating('DB', 'dropTable', 'call_drop'), 'history-db'),
  tools: { dropTable },
});
const opsAgent = new Agent({
  id: 'history-ops',
  description: 'Runs operations',
  model: scriptedModel(delegating('Ops', 'agent-db', 'call_db'), 'history-ops'),
  agents: { db: dbAgent },
});
const supervisorAgent = new Agent({
  id: 'history-supervisor',
  model: scriptedModel(delegating('Sup', 'agent-ops', 'call_ops'), 'history-supervisor'),
  agents: { ops: opsAgent },
});

/** Names the user from an earlier "my name is X", or counts the user messages it has seen. */
const pickMemory: TurnPicker = (prompt) => {
  const texts = prompt.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content));
  if (/what is my name/i.test(texts.at(-1) ?? '')) {
    const name = texts
      .map((t) => /my name is (\w+)/i.exec(t)?.[1])
      .filter(Boolean)
      .at(-1);
    return { text: name ? `You are ${name}.` : 'I do not know your name.' };
  }
  return { text: `Noted (${texts.length} user messages so far).` };
};
const memoryAgent = testAgent('history-memory', [], pickMemory).agent;

/** "<tool> <id>" calls that tool with `{ id }` (call id `call_1`); then it reports the result. */
const pickNamed: TurnPicker = (prompt) => {
  if (prompt.at(-1)?.role === 'tool') return { text: `Got: ${toolResults(prompt).join(' / ')}` };
  const [, tool, id] = /([a-z-]+) ([\w-]+)/.exec(textOf(prompt, -1)) ?? [];
  return { toolCalls: [{ toolCallId: 'call_1', toolName: tool!, args: { id: id! } }] };
};
const governedAgent = testAgent(
  'history-governed',
  [
    governedTool('expiring', { timeout: 1000 }),
    governedTool('transfer', { quorum: 2 }),
    governedTool('edit-record'),
    governedTool('escalating', {
      approvers: ['alice'],
      escalate: { after: 1000, to: 'role:managers' },
    }),
  ],
  pickNamed,
).agent;

/** A local read-only tool: ungated, so its calls may run inside a stretch. */
const lookup = createTool({
  id: 'lookup',
  description: 'Test tool lookup',
  inputSchema: z.object({ id: z.string() }),
  local: true,
  execute: async (input: { id: string }) => {
    executed.push({ tool: 'lookup', id: input.id });
    return { found: input.id };
  },
});

/** Looks up r1, then r2 (one call a step), then asks to delete r1 (gated), then answers. */
const pickStretch: TurnPicker = (prompt) => {
  const results = prompt.filter((message) => message.role === 'tool').length;
  if (results < 2) {
    const id = `r${results + 1}`;
    return {
      text: `Looking up ${id}.`,
      toolCalls: [{ toolCallId: `call_${id}`, toolName: 'lookup', args: { id } }],
    };
  }
  if (results === 2)
    return {
      toolCalls: [{ toolCallId: 'call_delete', toolName: 'deleteRecord', args: { id: 'r1' } }],
    };
  return { text: `Done: ${toolResults(prompt).join(' / ')}` };
};
/** A local-mode agent: its first three steps are one stretch, which ends at the gated call. */
const stretchAgent = new Agent({
  id: 'history-stretch',
  instructions: 'You are a test agent.',
  model: scriptedModel(pickStretch, 'history-stretch'),
  tools: { lookup, deleteRecord: governedTool('delete-record') },
  execution: { modelSteps: 'local' },
});

/** From generation 8: `history-agent`'s script, posting its waiting calls to a Slack app. */
const slackAgent = new Agent({
  id: 'history-slack',
  instructions: 'You are a test agent.',
  model: scriptedModel(pickDelete, 'history-slack'),
  tools: { deleteRecord: governedTool('delete-record') },
});

/**
 * From generation 8: deletes r1 (gated), counts eight times (ungated), deletes r2, one call per
 * step; it continues as new after 40 events, so between the two deletes.
 */
const pickLong: TurnPicker = (prompt) => {
  const done = prompt.filter((message) => message.role === 'tool').length;
  if (done === 10) return { text: 'Done.' };
  if (done === 0 || done === 9) {
    const id = done === 0 ? 'r1' : 'r2';
    return { toolCalls: [{ toolCallId: `call_${id}`, toolName: 'deleteRecord', args: { id } }] };
  }
  return {
    toolCalls: [{ toolCallId: `call_count_${done}`, toolName: 'count', args: { id: `${done}` } }],
  };
};
const count = createTool({
  id: 'count',
  description: 'Counts',
  inputSchema: z.object({ id: z.string() }),
  execute: async (input: { id: string }) => ({ counted: input.id }),
});
const longAgent = new Agent({
  id: 'history-long',
  instructions: 'You are a test agent.',
  model: scriptedModel(pickLong, 'history-long'),
  tools: { deleteRecord: governedTool('delete-record'), count },
  defaultOptions: { maxSteps: 20 },
  history: { continueAfterEvents: 40 },
});

/** Every agent the scenarios run; sub-agents are hosted through their supervisor. */
export const AGENTS = [
  historyAgent,
  weatherAgent,
  supervisorAgent,
  memoryAgent,
  governedAgent,
  stretchAgent,
  slackAgent,
  longAgent,
];

/** The Slack app `history-slack` posts to (a fake Slack the recorder starts). */
export const HISTORY_SLACK = {
  name: 'history-slack',
  channel: 'C0HISTORY',
  botToken: 'xoxb-history',
};

/** A small thread history limit, so the memory scenario sees its thread continue as new. */
export const THREAD_HISTORY_LIMIT = 8;
