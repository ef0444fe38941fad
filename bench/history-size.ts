/**
 * Measurement 3: the size of a run's Temporal history after 10, 20 and 40 steps. Each step sends
 * only the messages the worker has not seen, so the history should grow linearly with steps.
 */
import proto from '@temporalio/proto';
import { z } from 'zod';
import { Agent, createTool, type Tollgate } from '../src/index.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import { filler, loopPicker, loopPrompt } from './bench-model.js';
import { expectThat, progress } from './stats.js';

export const HISTORY_AGENT_ID = 'bench-history';
const TOOL_NAME = 'fetch-note';
/** Characters of model text per step and of each tool result. */
export const MESSAGE_CHARS = 200;

const { History, HistoryEvent } = proto.temporal.api.history.v1;
const { EventType } = proto.temporal.api.enums.v1;

export function historyAgent(): Agent {
  const tool = createTool({
    id: TOOL_NAME,
    description: 'Fetches the note of a step.',
    inputSchema: z.object({ step: z.number() }),
    execute: (input: { step: number }) => filler(`Note for step ${input.step}:`, MESSAGE_CHARS),
  });
  return new Agent({
    id: HISTORY_AGENT_ID,
    instructions: 'You are a benchmark agent.',
    model: scriptedModel(
      loopPicker({ toolName: TOOL_NAME, textChars: MESSAGE_CHARS }),
      HISTORY_AGENT_ID,
    ),
    tools: { [TOOL_NAME]: tool },
  });
}

export interface HistorySize {
  steps: number;
  events: number;
  /** Protobuf-encoded `History`, as the server stores and sends it. */
  protoBytes: number;
  /** Compact proto3 JSON (bytes as base64), close to Temporal's downloadable history files. */
  jsonBytes: number;
  /** The largest single event; it would grow with the step count if a step carried the whole conversation. */
  largestEvent: { bytes: number; type: string };
}

export async function measureHistorySizes(
  tollgate: Tollgate,
  stepCounts: number[],
): Promise<HistorySize[]> {
  const agent = tollgate.getAgent(HISTORY_AGENT_ID);
  const client = await tollgate.client();
  const sizes: HistorySize[] = [];
  for (const steps of stepCounts) {
    progress(`history: one run of ${steps} steps`);
    const output = await agent.generate(loopPrompt(steps), { maxSteps: steps });
    expectThat(
      output.finishReason === 'stop',
      `history run ${output.runId} finished with ${output.finishReason} ${output.error ?? ''}`,
    );
    expectThat(
      output.steps.length === steps,
      `history run had ${output.steps.length} steps, not ${steps}`,
    );
    expectThat(
      output.toolResults.length === steps - 1,
      `history run had ${output.toolResults.length} tool results, not ${steps - 1}`,
    );
    const history = await client.workflow.getHandle(output.runId).fetchHistory();
    sizes.push(sizeOf(steps, history));
  }
  return sizes;
}

function sizeOf(steps: number, history: proto.temporal.api.history.v1.IHistory): HistorySize {
  const events = history.events ?? [];
  let largest = { bytes: 0, type: 'none' };
  for (const event of events) {
    const size = HistoryEvent.encode(event).finish().length;
    if (size > largest.bytes)
      largest = { bytes: size, type: EventType[event.eventType ?? 0] ?? 'unknown' };
  }
  return {
    steps,
    events: events.length,
    protoBytes: History.encode(history).finish().length,
    // Compact proto-JSON: the shape `temporal workflow show --output json` prints.
    jsonBytes: Buffer.byteLength(JSON.stringify(History.fromObject(history))),
    largestEvent: largest,
  };
}
