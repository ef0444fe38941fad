import { asyncLocalStorage, type Context } from '@temporalio/activity';
import { streamText, tool as aiTool, type ModelMessage } from 'ai';
import { z } from 'zod';
import { AgentRegistry } from '../../src/activities/agent-registry.js';
import { ConversationCache } from '../../src/activities/conversation-cache.js';
import { runModelStep } from '../../src/activities/model-step.js';
import type { ModelStepOutput } from '../../src/common/activity-types.js';
import { Agent, createTool } from '../../src/index.js';
import type { LiveChunk, LiveDeltaTransport } from '../../src/live/live-transport.js';
import { scriptedModel, type ScriptedTurn } from '../../src/testing/scripted-model.js';

const PROMPT = [{ role: 'user', content: 'Look up item 7, then tell me.' }];
const TURN: ScriptedTurn = {
  text: ['Looking ', 'it up.'],
  toolCalls: [{ toolName: 'lookup', args: { item: 7 }, toolCallId: 'call-1' }],
};

/** What one model step reports, against what the AI SDK's own result says of the same call. */
describe('runModelStep', () => {
  it('reports the messages, finish reason and usage the AI SDK gives for the call, calling the model once', async () => {
    const { output, model, published } = await step([TURN]);

    const reference = streamText({
      model: scriptedModel([TURN]),
      system: 'You look things up.',
      messages: PROMPT as ModelMessage[],
      tools: { lookup: aiTool({ inputSchema: z.object({ item: z.number() }) }) },
    });
    for await (const part of reference.fullStream) void part;
    expect(output.responseMessages).toEqual(
      JSON.parse(JSON.stringify((await reference.response).messages)),
    );
    expect(output.finishReason).toBe(await reference.finishReason);
    expect(output.finishReason).toBe('tool-calls');
    const usage = await reference.totalUsage;
    expect(output.usage).toEqual({
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      totalTokens: usage.totalTokens,
    });
    expect(output.usage).toEqual({ inputTokens: 10, outputTokens: 14, totalTokens: 24 });
    expect(output.toolCalls.map((call) => [call.toolCallId, call.toolName, call.args])).toEqual([
      ['call-1', 'lookup', { item: 7 }],
    ]);
    expect(model.prompts).toHaveLength(1);
    expect(published.map((live) => live.chunk.type)).toEqual(['text-delta']);
  });

  it('answers a text-only step with finish reason stop', async () => {
    const { output } = await step([{ text: 'Item 7 is a lamp.' }]);
    expect(output.finishReason).toBe('stop');
    expect(output.toolCalls).toEqual([]);
    expect(output.responseMessages).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Item 7 is a lamp.' }] },
    ]);
  });

  it('rejects when the attempt is cancelled mid-stream, instead of reporting a step', async () => {
    const abort = new AbortController();
    const slow: ScriptedTurn = { text: ['a', 'b', 'c', 'd'], delayMs: 30 };
    const pending = step([slow], abort.signal);
    setTimeout(() => abort.abort(new Error('activity cancelled')), 40);
    await expect(pending).rejects.toThrow('activity cancelled');
  });

  it('rejects with the model error', async () => {
    const failing = scriptedModel(() => {
      throw new Error('provider down');
    });
    await expect(step([], undefined, failing)).rejects.toThrow('provider down');
  });
});

async function step(
  script: ScriptedTurn[],
  signal = new AbortController().signal,
  model = scriptedModel(script),
): Promise<{
  output: ModelStepOutput;
  model: ReturnType<typeof scriptedModel>;
  published: LiveChunk[];
}> {
  const agent = new Agent({
    id: 'step-agent',
    instructions: 'You look things up.',
    model,
    tools: {
      lookup: createTool({
        id: 'lookup',
        inputSchema: z.object({ item: z.number() }),
        execute: () => ({ found: true }),
      }),
    },
  });
  const published: LiveChunk[] = [];
  const bus: LiveDeltaTransport = {
    publish: async (_runId: string, live: LiveChunk) => void published.push(live),
    subscribe: () => () => undefined,
    connect: async () => undefined,
  } as unknown as LiveDeltaTransport;
  // The activity's context, as the worker sets it: what `Context.current()` reads in the step.
  const context = {
    info: { attempt: 1, isLocal: true },
    cancellationSignal: signal,
    heartbeat: () => undefined,
  } as unknown as Context;
  const output = await asyncLocalStorage.run(context, () =>
    runModelStep(
      {
        agents: new AgentRegistry([agent]),
        bus,
        conversations: new ConversationCache(),
        readConversation: () => Promise.reject(new Error('the test holds the whole conversation')),
      },
      {
        runId: 'run-1',
        agentId: 'step-agent',
        step: 1,
        chunkOffset: 1,
        conversation: { from: 0, messages: PROMPT },
        toolNaming: 'key',
      },
    ),
  );
  return { output, model, published };
}
