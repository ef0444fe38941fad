/**
 * An AG-UI front-end that reloads while its run works (a second `HttpAgent` with no messages)
 * is given the thread as a MESSAGES_SNAPSHOT and then follows the run live to its end, each
 * event once: nothing the snapshot shows comes again as TOOL_CALL_* or TOOL_CALL_RESULT, and
 * the tool ran once.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { z } from 'zod';
import { Agent, createTool, type Tollgate } from '../src/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { openRunOf } from '../src/server/chat/chat-runs.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import {
  eventually,
  hostAgents,
  lastToolOutputs,
  outputsText,
  recordingTool,
  uniqueId,
} from './support/harness.js';
import { finished, runChecked, typesOf } from './support/ag-ui-runs.js';
import { holdingAnswer } from './support/held-answer.js';

const TOKEN = 'agui-reload-token-0123456789';
const AGENT = 'agui-follow';
const SLOW_AGENT = 'agui-follow-tool';

/**
 * Step 1 calls `lookup`; step 2 (the prompt ends with its result) waits for the test's
 * `release()` before it streams its answer, and says so through `entered`.
 */
function heldModel() {
  return holdingAnswer(
    scriptedModel((prompt) => {
      const outputs = lastToolOutputs(prompt);
      return outputs
        ? { text: ['Found ', outputsText(outputs)] }
        : { toolCalls: [{ toolName: 'lookup', args: { id: 'rec-1' } }] };
    }, AGENT),
  );
}

/** A tool that waits for the test's `release()` before it answers, and says so through `entered`. */
function heldTool() {
  let entered!: () => void;
  let release!: () => void;
  const isEntered = new Promise<void>((resolve) => (entered = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const executions: string[] = [];
  const tool = createTool({
    id: 'slow-lookup',
    inputSchema: z.object({ id: z.string() }),
    execute: async (input: { id: string }) => {
      executions.push(input.id);
      entered();
      await released;
      return { found: input.id };
    },
  });
  return { tool, executions, entered: isEntered, release };
}

describe('AG-UI reload while the run works', () => {
  const held = heldModel();
  const lookup = recordingTool('lookup');
  const agent = new Agent({
    id: AGENT,
    instructions: 'You are a test agent.',
    model: held.model,
    tools: { lookup: lookup.tool },
  });
  const slow = heldTool();
  const slowAgent = new Agent({
    id: SLOW_AGENT,
    instructions: 'You are a test agent.',
    model: scriptedModel((prompt) =>
      lastToolOutputs(prompt)
        ? { text: 'Got it.' }
        : { toolCalls: [{ toolName: 'slow-lookup', args: { id: 'rec-2' } }] },
    ),
    tools: { 'slow-lookup': slow.tool },
  });
  let tollgate: Tollgate;
  let server: ListeningServer;

  beforeAll(async () => {
    tollgate = await hostAgents([agent, slowAgent], 'ag-ui-reload');
    server = await createTollgateServer({
      tollgate,
      auth: { tokens: [{ token: TOKEN, id: 'alice' }] },
    }).listen({ port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await tollgate?.shutdown();
  });

  const client = (threadId: string, agentId = AGENT) =>
    new HttpAgent({
      url: `${server.url}/api/agents/${agentId}/ag-ui`,
      headers: { authorization: `Bearer ${TOKEN}` },
      threadId,
    });

  /** A reload finds the run through visibility, which may list it a moment late. */
  const listed = (agentId: string, threadId: string) =>
    eventually(async () => {
      const thread = { agentId, threadId, resourceId: 'alice' };
      const open = await openRunOf(await tollgate.client(), thread);
      expect(open).toBeDefined();
      return open!;
    });

  /** A reload's events, and the messages of its MESSAGES_SNAPSHOT once that has arrived. */
  function reload(threadId: string, agentId = AGENT) {
    const reloaded = client(threadId, agentId);
    let snapshot!: (messages: Message[]) => void;
    const snapshotSent = new Promise<Message[]>((resolve) => (snapshot = resolve));
    const following = runChecked(reloaded, {}, (event) => {
      if (event.type === 'MESSAGES_SNAPSHOT') {
        snapshot((event as unknown as { messages: Message[] }).messages);
      }
    });
    return { reloaded, following, snapshotSent };
  }

  it('answers the snapshot, then follows the run to RUN_FINISHED, each event once; the tool ran once', async () => {
    const threadId = uniqueId('thread');
    const first = client(threadId);
    first.addMessage({ id: uniqueId('msg'), role: 'user', content: 'look up rec-1' });
    const started = runChecked(first);
    // Step 1 and its call are done; step 2's model call waits for the test.
    await held.entered;
    const runId = await listed(AGENT, threadId);

    const { reloaded, following, snapshotSent } = reload(threadId);
    // The run still works when the snapshot arrives: it holds step 1 and the result, no answer.
    const shown = await snapshotSent;
    expect(shown).toEqual([
      expect.objectContaining({ role: 'user', content: 'look up rec-1' }),
      expect.objectContaining({
        role: 'assistant',
        toolCalls: [
          expect.objectContaining({ function: expect.objectContaining({ name: 'lookup' }) }),
        ],
      }),
      expect.objectContaining({
        role: 'tool',
        content: JSON.stringify({ done: 'lookup', id: 'rec-1' }),
      }),
    ]);
    const callId = (shown[1] as { toolCalls: Array<{ id: string }> }).toolCalls[0]!.id;
    held.release();
    const [events] = await Promise.all([following, started]);

    // Only what the snapshot does not hold follows: step 2 and its text, then the outcome.
    const texts = events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT') as unknown as Array<{
      delta: string;
    }>;
    expect(typesOf(events)).toEqual([
      'RUN_STARTED',
      'MESSAGES_SNAPSHOT',
      'STATE_SNAPSHOT',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      ...texts.map(() => 'TEXT_MESSAGE_CONTENT'),
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
      'STATE_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    const answer = `Found ${JSON.stringify({ done: 'lookup', id: 'rec-1' })}`;
    expect(texts.map((t) => t.delta).join('')).toBe(answer);
    expect(stateOf(events[2]!)).toEqual({ tollgate: { runId, status: 'running', waiting: [] } });
    expect(finished(events)?.outcome).toEqual({ type: 'success' });
    expect(reloaded.state).toMatchObject({ tollgate: { runId, status: 'completed' } });

    // The reloaded client ends where the one that started the run does, each message once.
    expect(shape(reloaded.messages)).toEqual([
      ['user', 'look up rec-1'],
      ['assistant', null],
      ['tool', callId],
      ['assistant', answer],
    ]);
    expect(shape(first.messages)).toEqual(shape(reloaded.messages));
    expect(lookup.executions).toHaveLength(1);
  });

  it('a reload while a tool runs shows its call in the snapshot; its result follows alone', async () => {
    const threadId = uniqueId('thread');
    const first = client(threadId, SLOW_AGENT);
    first.addMessage({ id: uniqueId('msg'), role: 'user', content: 'find rec-2' });
    const started = runChecked(first);
    await slow.entered;
    const runId = await listed(SLOW_AGENT, threadId);
    const { reloaded, following, snapshotSent } = reload(threadId, SLOW_AGENT);
    const shown = await snapshotSent;
    expect(shape(shown)).toEqual([
      ['user', 'find rec-2'],
      ['assistant', null],
    ]);
    const callId = (shown[1] as { toolCalls: Array<{ id: string }> }).toolCalls[0]!.id;
    slow.release();
    const [events] = await Promise.all([following, started]);
    const texts = events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT');
    expect(typesOf(events)).toEqual([
      'RUN_STARTED',
      'MESSAGES_SNAPSHOT',
      'STATE_SNAPSHOT',
      'TOOL_CALL_RESULT',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      ...texts.map(() => 'TEXT_MESSAGE_CONTENT'),
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
      'STATE_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    expect(events[3]).toMatchObject({ toolCallId: callId, content: '{"found":"rec-2"}' });
    expect(reloaded.state).toMatchObject({ tollgate: { runId, status: 'completed' } });
    expect(shape(reloaded.messages)).toEqual([
      ['user', 'find rec-2'],
      ['assistant', null],
      ['tool', callId],
      ['assistant', 'Got it.'],
    ]);
    expect(shape(first.messages)).toEqual(shape(reloaded.messages));
    expect(slow.executions).toEqual(['rec-2']);
  });
});

const stateOf = (event: BaseEvent) => (event as { snapshot?: unknown }).snapshot;

/** Each message as its role and its text (a tool message: its call id). */
const shape = (messages: Message[]) =>
  messages.map((m) => [m.role, m.role === 'tool' ? m.toolCallId : (m.content ?? null)]);
