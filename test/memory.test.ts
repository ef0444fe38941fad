import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { Agent, createTool, Tollgate } from '../src/index.js';
import { DEFAULT_THREAD_SETTINGS } from '../src/activities/memory.js';
import type { JsonValue } from '../src/common/json.js';
import type { ThreadInput } from '../src/common/run-types.js';
import { DEFAULT_THREAD_MAX_BYTES, jsonByteLength } from '../src/common/thread-retention.js';
import { THREAD_MESSAGES, THREAD_WORKFLOW, threadWorkflowId } from '../src/common/wire.js';
import { scriptedModel, type TurnPicker } from '../src/testing/index.js';
import {
  eventually,
  untilNoHostPolls,
  recordingTool,
  uniqueId,
  uniqueQueue,
  lastToolOutputs,
  outputsText,
} from './support/harness.js';
import { expectUnbrokenChain } from './support/thread-chain.js';

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

  /** Appends to a thread workflow as the memory activity does, without a run. */
  async function appendDirectly(
    workflowId: string,
    memory: { resource: string; thread: string },
    runId: string,
    messages: JsonValue[],
  ): Promise<void> {
    const client = await tollgate.client();
    const input: ThreadInput = {
      agentId: 'memo-agent',
      resourceId: memory.resource,
      threadId: memory.thread,
      messages: [],
      appliedRuns: [],
      ...DEFAULT_THREAD_SETTINGS,
    };
    await client.workflow.signalWithStart(THREAD_WORKFLOW, {
      workflowId,
      taskQueue: tollgate.taskQueue,
      args: [input],
      signal: THREAD_MESSAGES.append,
      signalArgs: [{ runId, messages }],
    });
  }

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

  it('keeps apart threads whose resource and thread ids joined into the same id before', async () => {
    const a = tollgate.getAgent('memo-agent');
    const acme = uniqueId('acme');
    const alice = { resource: acme, thread: 'alice/t1' };
    const other = { resource: `${acme}/alice`, thread: 't1' };
    await a.generate('Hello, my name is Ada', { memory: alice });
    expect((await a.generate('What is my name?', { memory: other })).text).toBe(
      'I do not know your name.',
    );
    expect((await a.generate('What is my name?', { memory: alice })).text).toBe('You are Ada.');
  });

  it('carries a thread kept under its id from before ids were encoded into its new id', async () => {
    const a = tollgate.getAgent('memo-agent');
    const memory = { resource: uniqueId('50%'), thread: 't1' };
    const client = await tollgate.client();
    // As an earlier release wrote it: the parts joined as they are.
    const legacyId = `tollgate-thread/memo-agent/${memory.resource}/t1`;
    expect(threadWorkflowId('memo-agent', memory.resource, 't1')).not.toBe(legacyId);
    await appendDirectly(legacyId, memory, 'earlier-run', [
      { role: 'user', content: [{ type: 'text', text: 'My name is Lin' }] },
    ]);
    expect((await a.generate('What is my name?', { memory })).text).toBe('You are Lin.');
    // The first run on the new id carried the old messages over.
    const carried = await client.workflow
      .getHandle(threadWorkflowId('memo-agent', memory.resource, 't1'))
      .query<unknown[], [{ last: number }]>(THREAD_MESSAGES.messages, { last: 100 });
    expect(JSON.stringify(carried)).toContain('My name is Lin');
    expect(carried).toHaveLength(3);
  });

  it('does not read a thread kept under an old id other threads could share', async () => {
    const a = tollgate.getAgent('memo-agent');
    const memory = { resource: uniqueId('acme'), thread: 'alice/t1' };
    // Under this id, (acme, alice/t1) and (acme/alice, t1) both wrote before ids were encoded.
    const legacyId = `tollgate-thread/memo-agent/${memory.resource}/alice/t1`;
    await appendDirectly(legacyId, memory, 'earlier-run', [
      { role: 'user', content: [{ type: 'text', text: 'My name is Eve' }] },
    ]);
    expect((await a.generate('What is my name?', { memory })).text).toBe(
      'I do not know your name.',
    );
  });

  it('holds the newest 1 MiB of a 2,004-message conversation at the default limits, never losing the thread', async () => {
    const a = tollgate.getAgent('memo-agent');
    const memory = { resource: 'user-7', thread: uniqueId('long') };
    const id = threadWorkflowId('memo-agent', memory.resource, memory.thread);
    const client = await tollgate.client();
    const text = (n: number) => [{ type: 'text', text: `Message ${n} ${'x'.repeat(2500)}` }];
    const conversation = Array.from({ length: 2004 }, (_, n) => ({
      role: n % 2 ? 'assistant' : 'user',
      content: text(n),
    }));
    // 5 MB in 12 appends of 167 messages, each below the payload limit, as 12 long runs would add.
    for (let batch = 0; batch < 12; batch++) {
      const messages = conversation.slice(batch * 167, (batch + 1) * 167);
      await appendDirectly(id, memory, `bulk-${batch}`, messages);
    }
    // It remembers its last 40 messages (20 from the user) and adds its own two.
    expect((await a.generate('Hello again', { memory })).text).toBe(
      'Noted (21 user messages so far).',
    );
    await expectUnbrokenChain(client, id);
    const held = await client.workflow
      .getHandle(id)
      .query<JsonValue[], [{ last: number }]>(THREAD_MESSAGES.messages, { last: 10_000 });
    expect(jsonByteLength(held)).toBeLessThanOrEqual(DEFAULT_THREAD_MAX_BYTES);
    expect(jsonByteLength(held)).toBeGreaterThan(DEFAULT_THREAD_MAX_BYTES - 2 * 2600);
    expect(JSON.stringify(held.slice(0, -2))).toContain('Message 2003 ');
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

describe('auto-resume while no worker hosts the agent', () => {
  const opened: Tollgate[] = [];
  afterAll(async () => {
    for (const tollgate of opened) await tollgate.shutdown().catch(() => undefined);
  });

  it('refuses the resuming message with WORKER_UNAVAILABLE instead of waiting, and sends nothing', async () => {
    let asked = 0;
    const ask = createTool({
      id: 'get-weather',
      inputSchema: z.object({}),
      resumeSchema: z.object({ city: z.string() }),
      execute: async (_input, context) => {
        asked++;
        return context.agent.resumeData ? { city: 'x' } : context.agent.suspend({ q: 'city?' });
      },
    });
    const agent = new Agent({
      id: 'resume-no-host',
      model: scriptedModel(memoryModel),
      tools: { 'get-weather': ask },
      defaultOptions: { autoResumeSuspendedTools: true },
    });
    const queue = uniqueQueue('resume-no-host');
    const worker = new Tollgate({ agents: { agent }, temporal: { taskQueue: queue } });
    opened.push(worker);
    await worker.startWorker();
    const thread = { thread: uniqueId('thread'), resource: 'user-8' };
    const parked = await worker.getAgent('resume-no-host').generate("What's the weather?", {
      memory: thread,
    });
    expect(parked.finishReason).toBe('suspended');
    await worker.shutdown();

    const client = new Tollgate({
      temporal: { taskQueue: queue },
      decisions: { workerSeenWithin: 2000 },
    });
    opened.push(client);
    const history = async () =>
      (await (await client.client()).workflow.getHandle(parked.runId).fetchHistory()).events!
        .length;
    const before = await history();
    // Visibility lists the parked run a moment after it parked; then the stopped worker's polls
    // of the agent's queue must age past `workerSeenWithin`, or the message would be sent.
    const temporal = await client.client();
    await eventually(async () => {
      const { runs } = await client
        .getAgent('resume-no-host')
        .listSuspendedRuns({ threadId: thread.thread, resourceId: thread.resource });
      expect(runs.map((run) => run.runId)).toContain(parked.runId);
    }, 30_000);
    await untilNoHostPolls(temporal, queue, 'resume-no-host', 2000);
    const refused = await client
      .getAgent('resume-no-host')
      .generate('Paris', { memory: thread })
      .then(
        () => undefined,
        (e: unknown) => e as { code?: string },
      );
    expect(refused).toMatchObject({ code: 'WORKER_UNAVAILABLE' });
    expect(await history()).toBe(before);
    expect(asked).toBe(1);
  }, 90_000);
});
