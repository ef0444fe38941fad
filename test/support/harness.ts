import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { AgentRegistry } from '../../src/activities/agent-registry.js';
import { AgentDirectory } from '../../src/temporal-client/agent-directory.js';
import { recentPollers } from '../../src/temporal-client/worker-pollers.js';
import { agentTaskQueue } from '../../src/common/wire.js';
import { z } from 'zod';
import {
  Agent,
  createTool,
  Tollgate,
  type ApprovalPolicy,
  type Chunk,
  type Tool,
  type ToolExecutionContext,
} from '../../src/index.js';
import { chunksQuery } from '../../src/common/messages.js';
import type { RunInput } from '../../src/common/run-types.js';
import type { AgentStream } from '../../src/stream/agent-stream.js';
import {
  scriptedModel,
  type ScriptedTurn,
  type TurnPicker,
} from '../../src/testing/scripted-model.js';

/** A unique task queue per test, so runs of one test never reach another test's worker. */
export function uniqueQueue(name: string): string {
  return `test-${name}-${randomUUID().slice(0, 8)}`;
}

/** Starts a Tollgate hosting `agents` on a fresh task queue; `close()` shuts it down. */
export async function hostAgents(
  agents: Agent[],
  name = 'run',
  taskQueue = uniqueQueue(name),
): Promise<Tollgate> {
  const tollgate = new Tollgate({
    agents: Object.fromEntries(agents.map((agent) => [agent.id, agent])),
    temporal: { taskQueue },
  });
  await tollgate.startWorker();
  return tollgate;
}

/**
 * Workers of one test file that several tests start on shared queues (a fleet): `host` starts one
 * hosting `agents` on `queue`; `own` adds a runtime started otherwise; `closeAll`, for
 * `afterAll`, shuts every one down.
 */
export function fleetHosts(name: string) {
  const opened: Tollgate[] = [];
  return {
    async host(agents: Agent[], queue: string): Promise<Tollgate> {
      const tollgate = await hostAgents(agents, name, queue);
      opened.push(tollgate);
      return tollgate;
    },
    own(tollgate: Tollgate): Tollgate {
      opened.push(tollgate);
      return tollgate;
    },
    async closeAll(): Promise<void> {
      for (const tollgate of opened) await tollgate.shutdown().catch(() => undefined);
    },
  };
}

export interface Execution {
  input: unknown;
  idempotencyKey: string;
  resumeData: unknown;
}

/** A tool that records each execution, for asserting "ran once" and "never ran". */
export function recordingTool(
  id: string,
  options: {
    requireApproval?: Tool['requireApproval'];
    result?: (input: { id: string }) => unknown;
  } = {},
): { tool: Tool; executions: Execution[] } {
  const executions: Execution[] = [];
  const tool = createTool({
    id,
    description: `Test tool ${id}`,
    inputSchema: z.object({ id: z.string() }),
    ...(options.requireApproval !== undefined ? { requireApproval: options.requireApproval } : {}),
    execute: async (input: { id: string }, context: ToolExecutionContext) => {
      executions.push({
        input,
        idempotencyKey: context.idempotencyKey,
        resumeData: context.agent.resumeData,
      });
      return options.result ? options.result(input) : { done: id, id: input.id };
    },
  });
  return { tool, executions };
}

export function testAgent(
  id: string,
  tools: Tool[],
  script: ScriptedTurn[] | TurnPicker,
  defaultOptions?: Agent['defaultOptions'],
) {
  const model = scriptedModel(script, id);
  const agent = new Agent({
    id,
    instructions: 'You are a test agent.',
    model,
    tools: Object.fromEntries(tools.map((tool) => [tool.id, tool])),
    ...(defaultOptions ? { defaultOptions } : {}),
  });
  return { agent, model };
}

/** An agent that asks to delete rec-1 (gated), then says `Deleted.`; the tool's executions. */
export function gatedTestAgent(id: string) {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent(id, [deleteRecord.tool], (prompt) =>
    prompt.at(-1)?.role === 'tool'
      ? { text: 'Deleted.' }
      : { toolCalls: [{ toolName: 'delete-record', args: { id: 'rec-1' } }] },
  );
  return { agent, executions: deleteRecord.executions };
}

/**
 * The values the tools answered with when the prompt ends with their results (what a scripted
 * model reads to report them); undefined when it ends with anything else.
 */
export function lastToolOutputs(prompt: Parameters<TurnPicker>[0]): unknown[] | undefined {
  const last = prompt.at(-1);
  if (last?.role !== 'tool') return undefined;
  return last.content.map((part) =>
    part.type === 'tool-result' ? (part.output as { value?: unknown }).value : undefined,
  );
}

/** Tool outputs as JSON, joined by ` / `. */
export function outputsText(outputs: unknown[]): string {
  return outputs.map((value) => JSON.stringify(value)).join(' / ');
}

/**
 * A scripted model's turns for the gated `delete-record` tool: a prompt "delete <id>" calls it,
 * the turn after its result reports `Result: <outputs>`, anything else answers "Hello there.".
 */
export const deleteByPrompt: TurnPicker = (prompt) => {
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: `Result: ${outputsText(outputs)}` };
  const id = /delete ([\w-]+)/.exec(JSON.stringify(prompt.at(-1)?.content))?.[1];
  if (id) return { text: 'Deleting.', toolCalls: [{ toolName: 'delete-record', args: { id } }] };
  return { text: 'Hello there.' };
};

/** "<tool> <id>" in the prompt calls that tool with { id }; then the model reports what it got. */
export const callNamed: TurnPicker = (prompt) => {
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: `Got: ${outputsText(outputs)}` };
  const [, tool, id] = /([a-z-]+) ([\w-]+)/.exec(JSON.stringify(prompt.at(-1)?.content)) ?? [];
  return { toolCalls: [{ toolName: tool!, args: { id: id! } }] };
};

/**
 * A gated tool `id` (input `{ id }`, answering `{ done: id }`) that records each execution in
 * `executed`, with the approval policy `approval` if given.
 */
export function gatedRecordingTool(
  id: string,
  executed: Array<{ tool: string; id: string }>,
  approval?: ApprovalPolicy,
): Tool {
  return createTool({
    id,
    inputSchema: z.object({ id: z.string() }),
    requireApproval: true,
    ...(approval ? { approval } : {}),
    execute: async (input: { id: string }) => {
      executed.push({ tool: id, id: input.id });
      return { done: input.id };
    },
  });
}

/** Executions of a run so far (1 before any continue-as-new), read from the newest one's input. */
export async function executionsOf(client: Client, runId: string): Promise<number> {
  const history = await client.workflow.getHandle(runId).fetchHistory();
  const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
  const input = JSON.parse(
    new TextDecoder().decode(started.input!.payloads![0]!.data!),
  ) as RunInput;
  return (input.continued?.executions ?? 0) + 1;
}

export async function chunksOf(stream: AgentStream): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for await (const chunk of stream.fullStream) chunks.push(chunk);
  return chunks;
}

/** Run `runId`'s whole log, read by the chunk query (a closed run's replays it on a worker). */
export async function logByQueries(client: Client, runId: string): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for (;;) {
    const slice = await client.workflow
      .getHandle(runId)
      .query(chunksQuery, { offset: chunks.length });
    chunks.push(...slice.chunks);
    if (slice.chunks.length === 0 || chunks.length >= slice.total) return chunks;
  }
}

export function typesOf(chunks: Chunk[]): string[] {
  return chunks.map((chunk) => chunk.type);
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/**
 * Retries `check` until it passes or `timeoutMs` runs out (visibility in Temporal is eventually
 * consistent); the last failure is rethrown.
 */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Whether `promise` settles within `ms`; it goes on either way. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = promise.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `ask-user`: suspends with `{ question: 'Why?' }`, then answers with the resume data's answer. */
export function askUserTool(): Tool {
  return createTool({
    id: 'ask-user',
    inputSchema: z.object({}),
    resumeSchema: z.object({ answer: z.string() }),
    execute: async (_input, context) =>
      context.agent.resumeData
        ? { answer: context.agent.resumeData.answer }
        : context.agent.suspend({ question: 'Why?' }),
  });
}

/**
 * Lists `agents` in the directory of `taskQueue` as a worker named `worker` would, without
 * starting one: for runs whose workers are gone, or belong to an older release.
 */
export async function publishWithoutWorker(
  tollgate: Tollgate,
  taskQueue: string,
  agents: Agent[],
  worker: string,
): Promise<void> {
  const directory = new AgentDirectory(() => tollgate.client(), taskQueue, 75_000);
  await directory.publish(new AgentRegistry(agents).descriptions(), worker);
}

/**
 * Waits until Temporal lists no worker polling `agentId`'s own task queue on `taskQueue` within
 * `seenWithinMs`: a stopped worker's polls count until they are that old.
 */
export async function untilNoHostPolls(
  client: Client,
  taskQueue: string,
  agentId: string,
  seenWithinMs: number,
): Promise<void> {
  await eventually(async () => {
    const queue = agentTaskQueue(taskQueue, agentId);
    const hosts = await recentPollers(client, queue, seenWithinMs, 'activity');
    const identities = [...hosts.values()].map((poller) => poller.identity);
    if (hosts.size > 0) throw new Error(`${queue} is still polled by ${identities.join(', ')}`);
  }, 60_000);
}

/** A logger that says nothing: for bundling workflow code in tests (webpack's chatter). */
export const silentLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
