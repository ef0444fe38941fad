/**
 * The AG-UI route driven by AG-UI's own client (`HttpAgent` of @ag-ui/client), every event
 * received checked against @ag-ui/core's published schemas: text streams, a gated call ends the
 * AG-UI run with an interrupt and a resume approves (the tool runs once) or declines it (never
 * runs), a resume the run refuses changes nothing, a suspension is answered through resume, and
 * a retried request neither starts a second run nor runs a tool twice.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HttpAgent, type BaseEvent, type ResumeEntry } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import { z } from 'zod';
import { Agent, createTool, type Tollgate } from '../src/index.js';
import { agUiHandler, createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import {
  askUserTool,
  deleteByPrompt,
  eventually,
  gatedTestAgent,
  hostAgents,
  lastToolOutputs,
  outputsText,
  testAgent,
  uniqueId,
} from './support/harness.js';
import { finished, runChecked, typesOf } from './support/ag-ui-runs.js';

const ALICE = 'agui-alice-token-0123456789';
const READER = 'agui-reader-token-0123456789';
const TEXT_ONLY = 'agui-text-only-token-0123456789';

describe('AG-UI over a durable run, through @ag-ui/client', () => {
  const { agent: textAgent } = testAgent('agui-text', [], () => ({
    text: ['Hello', ', ', 'world'],
    delayMs: 100,
  }));
  const { agent: gated, executions } = gatedTestAgent('agui-gated');
  const { agent: asker } = testAgent('agui-ask', [askUserTool()], (prompt) => {
    const outputs = lastToolOutputs(prompt);
    return outputs
      ? { text: `Answer: ${outputsText(outputs)}` }
      : { toolCalls: [{ toolName: 'ask-user', args: {} }] };
  });
  const bobOnly: string[] = [];
  const guarded = new Agent({
    id: 'agui-bob-only',
    model: scriptedModel(deleteByPrompt),
    tools: {
      'delete-record': createTool({
        id: 'delete-record',
        inputSchema: z.object({ id: z.string() }),
        requireApproval: true,
        approval: { approvers: ['bob'] },
        execute: async (input) => {
          bobOnly.push(input.id);
          return { deleted: input.id };
        },
      }),
    },
  });
  let tollgate: Tollgate;
  let server: ListeningServer;

  beforeAll(async () => {
    tollgate = await hostAgents([textAgent, gated, asker, guarded], 'ag-ui');
    server = await createTollgateServer({
      tollgate,
      auth: {
        tokens: [
          { token: ALICE, id: 'alice' },
          { token: READER, id: 'alice', scopes: { actions: ['read'] } },
          { token: TEXT_ONLY, id: 'alice', scopes: { agents: ['agui-text'] } },
        ],
      },
    }).listen({ port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await tollgate?.shutdown();
  });

  /** An AG-UI client of `agentId` on `threadId`, as a front-end holds one. */
  const client = (agentId: string, threadId = uniqueId('thread')) =>
    new HttpAgent({
      url: `${server.url}/api/agents/${agentId}/ag-ui`,
      headers: { authorization: `Bearer ${ALICE}` },
      threadId,
    });

  const run = runChecked;

  /** The events of one POST as they are on the wire (SSE `data:` lines), each schema-checked. */
  async function wire(agentId: string, input: object, token = ALICE): Promise<BaseEvent[]> {
    const answer = await fetch(`${server.url}/api/agents/${agentId}/ag-ui`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    const text = await answer.text();
    const events = text
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => EventSchema.parse(JSON.parse(frame.slice(6))) as BaseEvent);
    return events;
  }

  const say = (agent: HttpAgent, text: string) =>
    agent.addMessage({ id: uniqueId('msg'), role: 'user', content: text });
  const errorOf = (events: BaseEvent[]) =>
    events.find((e) => e.type === 'RUN_ERROR') as { code?: string; message: string } | undefined;
  const historyLength = async (runId: string) =>
    (await (await tollgate.client()).workflow.getHandle(runId).fetchHistory()).events!.length;

  /** A run of `agentId` stopped at its waiting call: the client and the interrupt. */
  async function interrupted(agentId: string) {
    const agent = client(agentId);
    say(agent, 'delete rec-1');
    const events = await run(agent);
    expect(finished(events)?.outcome?.type).toBe('interrupt');
    const [interrupt] = agent.pendingInterrupts;
    const runId = (interrupt!.metadata as { tollgate: { runId: string } }).tollgate.runId;
    return { agent, events, interrupt: interrupt!, runId };
  }

  it('streams the reply as one text message between RUN_STARTED and RUN_FINISHED', async () => {
    const agent = client('agui-text');
    say(agent, 'hi');
    const events = await run(agent);
    expect(typesOf(events)).toEqual(
      expect.arrayContaining(['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_END']),
    );
    expect(typesOf(events)[0]).toBe('RUN_STARTED');
    expect(typesOf(events).at(-1)).toBe('RUN_FINISHED');
    const deltas = events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT') as unknown as Array<{
      delta: string;
      messageId: string;
    }>;
    // Live, as the model streams it (the server shares the worker's process), and once only.
    expect(deltas.map((d) => d.delta)).toEqual(['Hello', ', ', 'world']);
    expect(new Set(deltas.map((d) => d.messageId)).size).toBe(1);
    expect(finished(events)?.outcome).toEqual({ type: 'success' });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello, world' });
    expect(agent.state).toMatchObject({ tollgate: { status: 'completed', waiting: [] } });
  });

  it('the wire carries schema-valid SSE events; no RunAgentInput is HTTP 400, a refused one a lone RUN_ERROR', async () => {
    const threadId = uniqueId('thread');
    const input = {
      threadId,
      runId: uniqueId('run'),
      messages: [{ id: uniqueId('msg'), role: 'user', content: 'hi' }],
    };
    const events = await wire('agui-text', input);
    expect(typesOf(events)).toEqual([
      'RUN_STARTED',
      'STATE_SNAPSHOT',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      ...events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map(() => 'TEXT_MESSAGE_CONTENT'),
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
      'STATE_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    const bad = await fetch(`${server.url}/api/agents/agui-text/ag-ui`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
      body: JSON.stringify({ threadId }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
    // A well-formed input refused (no such agent, bad thread id, scope): a lone RUN_ERROR.
    const refusals: Array<[string, object, string, string]> = [
      ['no-such-agent', {}, ALICE, 'AGENT_NOT_FOUND'],
      ['agui-text', { threadId: 'a\u0000b' }, ALICE, 'BAD_REQUEST'],
      ['agui-text', {}, READER, 'FORBIDDEN'],
      // A reload of an agent outside the token's scope: refused, not told whether it exists.
      ['no-such-agent', { messages: [] }, TEXT_ONLY, 'FORBIDDEN'],
      ['agui-gated', { messages: [] }, TEXT_ONLY, 'FORBIDDEN'],
    ];
    for (const [agentId, change, token, code] of refusals) {
      const refused = await wire(agentId, { ...input, runId: uniqueId('run'), ...change }, token);
      expect(refused).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code })]);
    }
  });

  it('a gated call ends the run with an interrupt; resume approve runs the tool once', async () => {
    const before = executions.length;
    const { agent, events, interrupt, runId } = await interrupted('agui-gated');
    expect(typesOf(events)).toEqual(expect.arrayContaining(['TOOL_CALL_START', 'TOOL_CALL_END']));
    expect(interrupt).toMatchObject({
      reason: 'tool_approval',
      responseSchema: { required: ['approved'] },
      metadata: { tollgate: { toolName: 'delete-record', args: { id: 'rec-1' } } },
    });
    expect(interrupt.toolCallId).toBe(
      (events.find((e) => e.type === 'TOOL_CALL_START') as { toolCallId?: string }).toolCallId,
    );
    expect(agent.state).toMatchObject({ tollgate: { runId, status: 'waiting' } });
    expect(executions.length).toBe(before);

    const resume = [
      { interruptId: interrupt.id, status: 'resolved' as const, payload: { approved: true } },
    ];
    const after = await run(agent, { resume });
    expect(finished(after)?.outcome).toEqual({ type: 'success' });
    expect(typesOf(after)).toContain('TOOL_CALL_RESULT');
    expect(executions.length).toBe(before + 1);
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Deleted.' });
    expect(agent.pendingInterrupts).toEqual([]);

    // The same answer again (a client retrying after a dropped connection) runs nothing twice.
    const again = await run(client('agui-gated', agent.threadId), { resume });
    expect(errorOf(again)?.code).toBe('TOOL_CALL_NOT_PENDING');
    expect(executions.length).toBe(before + 1);
  });

  it('resume with approved: false declines: the tool never runs and the model is told', async () => {
    const before = executions.length;
    const { agent, interrupt } = await interrupted('agui-gated');
    const payload = { approved: false, reason: 'not today' };
    const after = await run(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload }],
    });
    const result = after.find((e) => e.type === 'TOOL_CALL_RESULT') as unknown as {
      content: string;
    };
    expect(result.content).toContain('not today');
    expect(finished(after)?.outcome).toEqual({ type: 'success' });
    expect(executions.length).toBe(before);
  });

  it('resume with editedArgs approves the call with the edited arguments, run once', async () => {
    const before = executions.length;
    const { agent, interrupt } = await interrupted('agui-gated');
    const payload = { approved: true, editedArgs: { id: 'rec-9' } };
    const after = await run(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload }],
    });
    expect(finished(after)?.outcome).toEqual({ type: 'success' });
    expect(executions.slice(before).map((e) => e.input)).toEqual([{ id: 'rec-9' }]);
  });

  it('a resume by a caller who is not an approver is RUN_ERROR, and the call still waits', async () => {
    const { agent, interrupt, runId } = await interrupted('agui-bob-only');
    const length = await historyLength(runId);
    const resume = [
      { interruptId: interrupt.id, status: 'resolved' as const, payload: { approved: true } },
    ];
    const refused = await run(agent, { resume });
    expect(typesOf(refused)).toEqual(['RUN_ERROR']);
    expect(errorOf(refused)?.code).toBe('NOT_AN_APPROVER');
    expect(await historyLength(runId)).toBe(length);
    expect(bobOnly).toEqual([]);
    const pending = await tollgate.getAgent('agui-bob-only').pendingToolCalls(runId);
    expect(pending.map((c) => c.toolCallId)).toEqual([interrupt.toolCallId]);
    // Still answerable: a reloaded front-end (no interrupts in memory) is told what waits.
    const reloaded = client('agui-bob-only', agent.threadId);
    const report = await run(reloaded);
    expect(finished(report)?.outcome?.interrupts?.map((i) => i.id)).toEqual([interrupt.id]);
    expect(typesOf(report)).toContain('MESSAGES_SNAPSHOT');
    expect(reloaded.messages).toEqual([
      expect.objectContaining({ role: 'user', content: 'delete rec-1' }),
      expect.objectContaining({
        role: 'assistant',
        toolCalls: [expect.objectContaining({ id: interrupt.toolCallId })],
      }),
    ]);
    expect(reloaded.state).toMatchObject({ tollgate: { runId, status: 'waiting' } });
  });

  it('forged interrupt ids and malformed answers are typed RUN_ERRORs that change nothing', async () => {
    const { agent, interrupt, runId } = await interrupted('agui-gated');
    const length = await historyLength(runId);
    const cases: Array<[ResumeEntry, string]> = [
      [
        { interruptId: 'forged', status: 'resolved', payload: { approved: true } },
        'INVALID_APPROVAL_ID',
      ],
      [{ interruptId: interrupt.id, status: 'resolved', payload: { yes: 1 } }, 'INVALID_DECISION'],
    ];
    for (const [entry, code] of cases) {
      const fresh = client('agui-gated', agent.threadId);
      expect(errorOf(await run(fresh, { resume: [entry] }))?.code).toBe(code);
    }
    // The real interrupt id, posted on another thread: no run of that thread waits on it.
    const elsewhere = {
      interruptId: interrupt.id,
      status: 'resolved' as const,
      payload: { approved: true },
    };
    expect(errorOf(await run(client('agui-gated'), { resume: [elsewhere] }))?.code).toBe(
      'INVALID_APPROVAL_ID',
    );
    expect(await historyLength(runId)).toBe(length);
  });

  it('a suspension is an interrupt whose resume payload is the resume data', async () => {
    const agent = client('agui-ask');
    say(agent, 'ask me');
    const events = await run(agent);
    const [interrupt] = agent.pendingInterrupts;
    expect(finished(events)?.outcome?.type).toBe('interrupt');
    expect(interrupt).toMatchObject({
      reason: 'input_required',
      responseSchema: { properties: { answer: { type: 'string' } } },
      metadata: { tollgate: { suspendPayload: { question: 'Why?' } } },
    });
    const bad = await run(client('agui-ask', agent.threadId), {
      resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { answer: 7 } }],
    });
    expect(errorOf(bad)?.code).toBe('INVALID_RESUME_DATA');
    const after = await run(agent, {
      resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { answer: 'because' } }],
    });
    expect(finished(after)?.outcome).toEqual({ type: 'success' });
    expect(agent.messages.at(-1)).toMatchObject({ content: 'Answer: {"answer":"because"}' });
  });

  it('agUiHandler serves the same protocol as a Request → Response handler, as identify says', async () => {
    const handler = agUiHandler(tollgate, {
      agentId: 'agui-text',
      identify: (request) =>
        request.headers.get('x-user') === 'alice' ? { identity: { id: 'alice' } } : undefined,
    });
    const agent = new HttpAgent({
      url: 'http://app.test/api/agent',
      headers: { 'x-user': 'alice' },
      fetch: (url, init) => handler(new Request(url, init)),
    });
    say(agent, 'hi');
    const events = await run(agent);
    expect(finished(events)?.outcome).toEqual({ type: 'success' });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello, world' });
    const anonymous = await handler(
      new Request('http://app.test/api/agent', { method: 'POST', body: '{}' }),
    );
    expect(anonymous.status).toBe(401);
  });

  it('a request retried with the same runId replays its run instead of starting another', async () => {
    const before = executions.length;
    const threadId = uniqueId('thread');
    const first = client('agui-gated', threadId);
    say(first, 'delete rec-1');
    const runId = uniqueId('agui-run');
    const events = await run(first, { runId });
    const retry = client('agui-gated', threadId);
    retry.setMessages(first.messages.filter((m) => m.role === 'user'));
    const replayed = await run(retry, { runId });
    expect(retry.pendingInterrupts.map((i) => i.id)).toEqual(
      first.pendingInterrupts.map((i) => i.id),
    );
    expect(typesOf(replayed)).toEqual(typesOf(events));
    const runs = await eventually(async () => {
      const listed = await tollgate
        .getAgent('agui-gated')
        .listSuspendedRuns({ threadId, resourceId: 'alice' });
      expect(listed.total).toBeGreaterThan(0);
      return listed;
    });
    expect(runs.runs.map((r) => r.runId)).toEqual([runId]);
    expect(executions.length).toBe(before);
  });
});
