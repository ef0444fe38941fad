import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { Agent, createTool, Tollgate } from '../src/index.js';
import { THREAD_WORKFLOW, threadWorkflowId } from '../src/common/wire.js';
import { scriptedModel, type TurnPicker } from '../src/testing/index.js';
import {
  eventually,
  recordingTool,
  uniqueId,
  uniqueQueue,
  lastToolOutputs,
  outputsText,
} from './support/harness.js';

type Prompt = Parameters<TurnPicker>[0];

function userTexts(prompt: Prompt): string[] {
  return prompt
    .filter((m) => m.role === 'user')
    .map((m) =>
      (m.content as Array<{ type: string; text?: string }>).map((p) => p.text ?? '').join(''),
    );
}

/**
 * A model with a memory test in mind: it names the user from earlier messages, calls the weather
 * or delete tool when asked, and when asked to extract resume data, takes a capitalised reply as a city.
 */
const memoryModel: TurnPicker = (prompt) => {
  const all = JSON.stringify(prompt);
  if (all.includes('provide_resume_data')) {
    const reply = /The user replied: \\"([^"\\]*)\\"/.exec(all)?.[1] ?? '';
    return {
      toolCalls: [
        { toolName: 'provide_resume_data', args: /^[A-Z]/.test(reply) ? { city: reply } : {} },
      ],
    };
  }
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: `Result: ${outputsText(outputs)}` };
  const texts = userTexts(prompt);
  const current = texts.at(-1) ?? '';
  if (/weather/i.test(current)) return { toolCalls: [{ toolName: 'get-weather', args: {} }] };
  if (/delete/i.test(current))
    return { toolCalls: [{ toolName: 'delete-record', args: { id: 'm1' } }] };
  if (/what is my name/i.test(current)) {
    const name = texts
      .map((t) => /my name is (\w+)/i.exec(t)?.[1])
      .filter(Boolean)
      .at(-1);
    return { text: name ? `You are ${name}.` : 'I do not know your name.' };
  }
  return { text: `Noted (${texts.length} user messages so far).` };
};

describe('memory: conversations kept in Temporal across runs', () => {
  const weatherCalls: unknown[] = [];
  const weather = createTool({
    id: 'get-weather',
    inputSchema: z.object({}),
    suspendSchema: z.object({ question: z.string() }),
    resumeSchema: z.object({ city: z.string() }),
    execute: async (_input, context) => {
      weatherCalls.push(context.agent.resumeData);
      if (!context.agent.resumeData) return context.agent.suspend({ question: 'Which city?' });
      return { city: context.agent.resumeData.city, sky: 'clear' };
    },
  });
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  // Keyed by id: the model calls the tools by these names (SPEC §1 "Tool names").
  const tools = { 'get-weather': weather, 'delete-record': deleteRecord.tool };
  const auto = new Agent({
    id: 'memo-agent',
    model: scriptedModel(memoryModel),
    tools,
    defaultOptions: { autoResumeSuspendedTools: true },
  });
  const manual = new Agent({ id: 'manual-agent', model: scriptedModel(memoryModel), tools });
  let tollgate: Tollgate;

  beforeAll(async () => {
    // A tiny history limit, so threads continue as new during the tests.
    tollgate = new Tollgate({
      agents: { auto, manual },
      temporal: { taskQueue: uniqueQueue('memory') },
      threads: { historyLimit: 12 },
    });
    await tollgate.startWorker();
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  const memory = () => ({ thread: uniqueId('thread'), resource: 'user-7' });

  it('remembers what was said in earlier runs of the same thread, and only there', async () => {
    const a = tollgate.getAgent('memo-agent');
    const thread = memory();
    expect((await a.generate('Hello, my name is Ada', { memory: thread })).text).toBe(
      'Noted (1 user messages so far).',
    );
    expect((await a.generate('What is my name?', { memory: thread })).text).toBe('You are Ada.');
    expect((await a.generate('What is my name?', { memory: memory() })).text).toBe(
      'I do not know your name.',
    );
  });

  it('continues the thread as new before its history grows too long, keeping the conversation', async () => {
    const a = tollgate.getAgent('memo-agent');
    const thread = memory();
    await a.generate('My name is Grace', { memory: thread });
    for (let turn = 0; turn < 4; turn++)
      await a.generate(`Filler message ${turn}`, { memory: thread });
    const client = await tollgate.client();
    const id = threadWorkflowId('memo-agent', thread.resource, thread.thread);
    await eventually(async () => {
      const found: string[] = [];
      for await (const execution of client.workflow.list({
        query: `WorkflowId = "${id}" AND ExecutionStatus = "ContinuedAsNew"`,
      }))
        found.push(execution.runId);
      expect(found.length).toBeGreaterThan(0);
    });
    const answer = await a.generate('What is my name?', { memory: thread });
    expect(answer.text).toBe('You are Grace.');
    const described = await client.workflow.getHandle(id).describe();
    expect(described.type).toBe(THREAD_WORKFLOW);
  });

  it('resumes a suspended call with data the model extracts from the next message', async () => {
    const a = tollgate.getAgent('memo-agent');
    const thread = memory();
    const asked = await a.generate("What's the weather?", { memory: thread });
    expect(asked.finishReason).toBe('suspended');
    expect(asked.suspendPayload).toMatchObject({
      toolName: 'get-weather',
      suspendPayload: { question: 'Which city?' },
    });
    const answer = await eventually(async () => {
      const output = await a.generate('San Francisco', { memory: thread });
      expect(output.runId).toBe(asked.runId);
      return output;
    });
    expect(answer.finishReason).toBe('stop');
    expect(answer.text).toBe('Result: {"city":"San Francisco","sky":"clear"}');
    expect(weatherCalls.at(-1)).toEqual({ city: 'San Francisco' });
  });

  it('starts a new run when the message holds no usable resume data, leaving the call suspended', async () => {
    const a = tollgate.getAgent('memo-agent');
    const thread = memory();
    const asked = await a.generate("What's the weather?", { memory: thread });
    await eventually(async () =>
      expect((await a.listSuspendedRuns({ threadId: thread.thread })).total).toBe(1),
    );
    const other = await a.generate('no idea, sorry', { memory: thread });
    expect(other.runId).not.toBe(asked.runId);
    expect(await a.pendingToolCalls(asked.runId)).toEqual([
      expect.objectContaining({ toolName: 'get-weather' }),
    ]);
  });

  it('never grants an approval from a message, even one that says "approve"', async () => {
    const a = tollgate.getAgent('memo-agent');
    const thread = memory();
    const gated = await a.generate('Please delete m1', { memory: thread });
    expect(gated.finishReason).toBe('suspended');
    await eventually(async () =>
      expect((await a.listSuspendedRuns({ threadId: thread.thread })).total).toBe(1),
    );
    const before = deleteRecord.executions.length;
    const reply = await a.generate('approve', { memory: thread, autoResumeSuspendedTools: true });
    expect(reply.runId).not.toBe(gated.runId);
    expect(await a.pendingToolCalls(gated.runId)).toEqual([
      expect.objectContaining({ toolName: 'delete-record', requiresApproval: true }),
    ]);
    expect(deleteRecord.executions.length).toBe(before);
  });

  it('leaves suspended calls alone when auto-resume is off, and needs memory to turn it on', async () => {
    const m = tollgate.getAgent('manual-agent');
    const thread = memory();
    const asked = await m.generate("What's the weather?", { memory: thread });
    await eventually(async () =>
      expect((await m.listSuspendedRuns({ threadId: thread.thread })).total).toBe(1),
    );
    const next = await m.generate('Paris', { memory: thread });
    expect(next.runId).not.toBe(asked.runId);
    const forced = await m.generate('Paris', { memory: thread, autoResumeSuspendedTools: true });
    expect(forced.runId).toBe(asked.runId);
    expect(forced.text).toBe('Result: {"city":"Paris","sky":"clear"}');
    await expect(m.generate('Paris', { autoResumeSuspendedTools: true })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
  });
});
