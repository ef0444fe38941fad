import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { createTool, type Tollgate } from '../src/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import {
  chunksOf,
  hostAgents,
  testAgent,
  typesOf,
  lastToolOutputs,
  outputsText,
} from './support/harness.js';

interface WeatherCall {
  location?: string;
  resumeData: unknown;
}

/** Asks for the weather of each city in the prompt ("cities: a,b"), then reports the results. */
const weatherThenReport: TurnPicker = (prompt) => {
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: outputsText(outputs) };
  const last = prompt.at(-1);
  const cities = /cities: ([\w,]+)/.exec(JSON.stringify(last?.content))?.[1]?.split(',') ?? ['one'];
  return {
    toolCalls: cities.map((tag) => ({
      toolName: 'get-weather',
      args: {},
      toolCallId: `call-${tag}`,
    })),
  };
};

describe('suspend() and resume (SPEC §6)', () => {
  const calls: WeatherCall[] = [];
  const weather = createTool({
    id: 'get-weather',
    description: 'Weather for a city',
    inputSchema: z.object({ location: z.string().optional() }),
    suspendSchema: z.object({ question: z.string() }),
    resumeSchema: z.object({ city: z.string(), days: z.number().int().min(1).max(7).optional() }),
    execute: async (input, context) => {
      calls.push({ ...input, resumeData: context.agent.resumeData });
      const city = context.agent.resumeData?.city ?? input.location;
      if (!city)
        return await context.agent.suspend({
          question: `Which city for ${context.agent.toolCallId}?`,
        });
      return { weather: `sunny in ${city}` };
    },
  });
  const broken = createTool({
    id: 'broken-suspend',
    inputSchema: z.object({}),
    suspendSchema: z.object({ question: z.string() }),
    execute: async (_input, context) => context.agent.suspend({ question: 42 } as never),
  });
  const { agent } = testAgent('weather-agent', [weather, broken], weatherThenReport);
  const { agent: brokenAgent } = testAgent('broken-agent', [broken], (prompt) =>
    prompt.at(-1)?.role === 'tool'
      ? { text: 'gave up' }
      : { toolCalls: [{ toolName: 'broken-suspend', args: {} }] },
  );
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent, brokenAgent], 'suspend');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  const a = () => tollgate.getAgent('weather-agent');

  it('parks the call, shows the payload and the resume schema, and runs execute again with the data', async () => {
    const stream = await a().stream('Weather? cities: solo');
    const chunks = await chunksOf(stream);
    expect(typesOf(chunks)).toEqual([
      'start',
      'step-start',
      'tool-call',
      'step-finish',
      'tool-call-suspended',
      'finish',
    ]);
    const suspended = chunks.find((c) => c.type === 'tool-call-suspended')!.payload as {
      suspendPayload: unknown;
      resumeSchema: string;
      toolCallId: string;
    };
    expect(suspended.suspendPayload).toEqual({ question: 'Which city for call-solo?' });
    expect(JSON.parse(suspended.resumeSchema)).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    });
    expect(await stream.suspendPayload).toMatchObject({
      toolCallId: 'call-solo',
      toolName: 'get-weather',
      args: {},
      suspendPayload: { question: 'Which city for call-solo?' },
      requiresApproval: false,
    });
    const before = calls.length;
    const resumed = await a().resumeStream({ city: 'Paris' }, { runId: stream.runId });
    expect(await resumed.text).toBe('{"weather":"sunny in Paris"}');
    expect(calls.slice(before)).toEqual([{ resumeData: { city: 'Paris' } }]);
  });

  it('rejects resume data that fails the schema, naming the field, and keeps the run suspended', async () => {
    const first = await a().generate('Weather? cities: strict');
    expect(first.finishReason).toBe('suspended');
    expect(first.suspendPayload).toMatchObject({
      toolCallId: 'call-strict',
      suspendPayload: { question: 'Which city for call-strict?' },
    });
    await expect(a().resumeStream({ town: 'Oslo' }, { runId: first.runId })).rejects.toMatchObject({
      code: 'INVALID_RESUME_DATA',
      message: expect.stringContaining('resumeData.city is required'),
    });
    await expect(
      a().resumeStream({ city: 'Oslo', days: 9 }, { runId: first.runId }),
    ).rejects.toMatchObject({
      code: 'INVALID_RESUME_DATA',
      message: expect.stringContaining('resumeData.days must be at most 7'),
    });
    await expect(a().approveToolCall({ runId: first.runId })).rejects.toMatchObject({
      code: 'WRONG_DECISION_KIND',
    });
    expect(await a().pendingToolCalls(first.runId)).toEqual([
      expect.objectContaining({ toolCallId: 'call-strict', requiresApproval: false }),
    ]);
    const done = await a().resumeGenerate({ city: 'Oslo', days: 2 }, { runId: first.runId });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toBe('{"weather":"sunny in Oslo"}');
  });

  it('gives each of several suspended calls its own data, in any order', async () => {
    const first = await a().generate('Weather? cities: left,right');
    expect(first.finishReason).toBe('suspended');
    // Suspensions are requested as their executions finish, in either order.
    expect((await a().pendingToolCalls(first.runId)).map((c) => c.toolCallId).sort()).toEqual([
      'call-left',
      'call-right',
    ]);
    const afterRight = await a().resumeGenerate(
      { city: 'Rome' },
      { runId: first.runId, toolCallId: 'call-right' },
    );
    expect(afterRight.finishReason).toBe('suspended');
    expect(afterRight.suspendPayload).toMatchObject({ toolCallId: 'call-left' });
    const done = await a().resumeGenerate(
      { city: 'Lima' },
      { runId: first.runId, toolCallId: 'call-left' },
    );
    expect(done.text).toBe('{"weather":"sunny in Lima"} / {"weather":"sunny in Rome"}');
  });

  it('turns a suspend() payload that fails suspendSchema into a tool error the model sees', async () => {
    const output = await tollgate.getAgent('broken-agent').generate('try');
    expect(output.finishReason).toBe('stop');
    expect(output.toolResults).toEqual([
      expect.objectContaining({
        toolName: 'broken-suspend',
        error: expect.stringContaining('suspend() payload'),
      }),
    ]);
  });
});
