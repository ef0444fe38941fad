/**
 * Measurement 2: from the moment a client calls `approveToolCall()` to the moment the gated
 * tool's `execute` begins on the worker (same process, so one monotonic clock serves both).
 */
import { z } from 'zod';
import { Agent, createTool, type Tollgate } from '../src/index.js';
import { scriptedModel, type TurnPicker } from '../src/testing/scripted-model.js';
import { expectThat, progress } from './stats.js';

export const APPROVAL_AGENT_ID = 'bench-approval';
const TOOL_NAME = 'gated-lookup';

/** `performance.now()` at the start of each run's tool execution, by run id. */
const toolStarts = new Map<string, number>();

const gatedOnce: TurnPicker = (prompt) =>
  prompt.some((message) => message.role === 'tool')
    ? { text: 'Done.' }
    : { text: 'Looking it up.', toolCalls: [{ toolName: TOOL_NAME, args: { id: 'rec-1' } }] };

/**
 * An agent whose one tool call (`gated-lookup`) needs approval; at each run's tool start it sets
 * `starts[runId]` to `performance.now()`. `local` runs its model steps in local execution mode.
 */
export function gatedLookupAgent(id: string, starts: Map<string, number>, local = false): Agent {
  const tool = createTool({
    id: TOOL_NAME,
    description: 'A lookup that needs approval.',
    inputSchema: z.object({ id: z.string() }),
    requireApproval: true,
    execute: (input: { id: string }, context) => {
      starts.set(context.agent.runId, performance.now());
      return { id: input.id, found: true };
    },
  });
  return new Agent({
    id,
    instructions: 'You are a benchmark agent.',
    model: scriptedModel(gatedOnce, id),
    tools: { [TOOL_NAME]: tool },
    ...(local ? { execution: { modelSteps: 'local' } } : {}),
  } as ConstructorParameters<typeof Agent>[0]);
}

export function approvalAgent(): Agent {
  return gatedLookupAgent(APPROVAL_AGENT_ID, toolStarts);
}

export interface ApprovalSample {
  /** `approveToolCall()` called → tool `execute` starts. */
  toToolStartMs: number;
  /** `approveToolCall()` called → it resolves (the update was accepted and applied). */
  toUpdateDoneMs: number;
  /** `approveToolCall()` called → the run's final `finish` chunk is read. */
  toRunEndMs: number;
}

export async function measureApprovalLatency(
  tollgate: Tollgate,
  options: { samples: number; warmups: number },
): Promise<ApprovalSample[]> {
  const approve = approvalRunner(tollgate);
  const samples: ApprovalSample[] = [];
  progress(`approval: ${options.samples} sequential runs`);
  for (let i = 0; i < options.warmups + options.samples; i++) {
    const sample = await approve();
    if (i >= options.warmups) samples.push(sample);
  }
  return samples;
}

/** One approval at a time: a run parks on the gated lookup, is approved and read to its end. */
export function approvalRunner(tollgate: Tollgate): () => Promise<ApprovalSample> {
  const agent = tollgate.getAgent(APPROVAL_AGENT_ID);
  return async () => {
    const first = await agent.generate('Please run the gated lookup.');
    expectThat(
      first.finishReason === 'suspended',
      `run ${first.runId} did not wait for approval (${first.finishReason})`,
    );
    expectThat(
      !toolStarts.has(first.runId),
      `the gated tool of ${first.runId} ran before approval`,
    );

    const approvedAt = performance.now();
    const stream = await agent.approveToolCall({ runId: first.runId });
    const updateDone = performance.now();
    for await (const chunk of stream.fullStream) void chunk;
    const runEnd = performance.now();

    expectThat(
      (await stream.finishReason) === 'stop',
      `approved run ${first.runId} finished with ${await stream.finishReason}`,
    );
    const toolStart = toolStarts.get(first.runId);
    expectThat(toolStart !== undefined, `the gated tool of ${first.runId} never started`);
    return {
      toToolStartMs: toolStart - approvedAt,
      toUpdateDoneMs: updateDone - approvedAt,
      toRunEndMs: runEnd - approvedAt,
    };
  };
}
