import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createTool, type Chunk, type Tollgate } from '../src/index.js';
import { TollgateClient, TollgateHttpError, type AgentStream } from '../src/http-client/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import {
  eventually,
  hostAgents,
  recordingTool,
  testAgent,
  uniqueId,
  askUserTool,
  lastToolOutputs,
  outputsText,
} from './support/harness.js';

/** "delete a,b" calls the gated tool once per id, "ask" the suspending tool, "wait" the slow one. */
const byPrompt: TurnPicker = (prompt) => {
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: `Result: ${outputsText(outputs)}` };
  const last = prompt.at(-1);
  const text = JSON.stringify(last?.content);
  const ids = /delete ([\w,-]+)/.exec(text)?.[1]?.split(',');
  if (ids) {
    return { toolCalls: ids.map((id) => ({ toolName: 'delete-record', args: { id } })) };
  }
  if (text.includes('ask')) return { toolCalls: [{ toolName: 'ask-user', args: {} }] };
  if (text.includes('wait')) return { toolCalls: [{ toolName: 'wait-a-while', args: {} }] };
  return { text: 'Hello there.' };
};

const TOKEN = 'sdk-token-0123456789';

async function chunksOf(stream: AgentStream): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for await (const chunk of stream.fullStream) chunks.push(chunk);
  return chunks;
}

describe('the client SDK against a running server', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const askUser = askUserTool();
  const waitAWhile = createTool({
    id: 'wait-a-while',
    inputSchema: z.object({}),
    execute: async () => {
      await released;
      return { waited: true };
    },
  });
  const { agent } = testAgent('sdk-agent', [deleteRecord.tool, askUser, waitAWhile], byPrompt);
  const hidden: unknown[] = [];
  let tollgate: Tollgate;
  let server: ListeningServer;
  let client: TollgateClient;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'sdk');
    server = await createTollgateServer({
      tollgate,
      auth: { tokens: [{ token: TOKEN, id: 'sdk-user', roles: ['ops'] }] },
      logError: (error) => hidden.push(error),
    }).listen({ port: 0 });
    client = new TollgateClient({ baseUrl: `${server.url}/`, token: TOKEN });
  });
  afterAll(async () => {
    release();
    await server.close();
    await tollgate.shutdown();
  });

  const a = () => client.getAgent('sdk-agent');
  const executionsOf = (id: string) =>
    deleteRecord.executions.filter((e) => (e.input as { id: string }).id === id);

  it('streams to the approval chunk, then approveToolCall streams the rest; the tool runs once', async () => {
    const stream = await a().stream('delete rec-sdk');
    expect(stream.startOffset).toBe(0);
    const chunks = await chunksOf(stream);
    const approval = chunks.find((c) => c.type === 'tool-call-approval');
    expect(approval?.payload).toMatchObject({ toolName: 'delete-record', args: { id: 'rec-sdk' } });
    expect(await stream.finishReason).toBe('suspended');
    expect(await stream.suspendPayload).toMatchObject({ requiresApproval: true });
    expect(await stream.nextOffset).toBe(chunks.length);
    expect(executionsOf('rec-sdk')).toHaveLength(0);

    const { toolCallId, fingerprint } = approval!.payload as {
      toolCallId: string;
      fingerprint: string;
    };
    const rest = await a().approveToolCall({ runId: stream.runId, toolCallId, fingerprint });
    expect(rest.runId).toBe(stream.runId);
    expect(rest.startOffset).toBe(chunks.length);
    const texts: string[] = [];
    for await (const text of rest.textStream) texts.push(text);
    expect(texts.join('')).toBe('Result: {"done":"delete-record","id":"rec-sdk"}');
    expect(await rest.finishReason).toBe('stop');
    expect(await rest.toolResults).toEqual([expect.objectContaining({ toolCallId })]);
    expect(executionsOf('rec-sdk')).toHaveLength(1);
  });

  it('generates, declines with a reason, and never runs the declined call', async () => {
    const first = await a().generate('delete rec-sdk-decline');
    expect(first).toMatchObject({
      finishReason: 'suspended',
      suspendPayload: { toolName: 'delete-record' },
    });
    const done = await a().declineToolCallGenerate({ runId: first.runId, reason: 'No.' });
    expect(done).toMatchObject({ finishReason: 'stop', text: 'Result: "No."' });
    expect(executionsOf('rec-sdk-decline')).toHaveLength(0);
    const again = await a().generate('delete rec-sdk-decline2');
    const streamed = await a().declineToolCall({ runId: again.runId });
    expect(await streamed.text).toBe('Result: "Tool call was not approved by the user"');
    expect(executionsOf('rec-sdk-decline2')).toHaveLength(0);
  });

  it('resumes a call its tool suspended, by stream and by generate', async () => {
    const stream = await a().stream('ask me');
    const chunks = await chunksOf(stream);
    expect(chunks.find((c) => c.type === 'tool-call-suspended')?.payload).toMatchObject({
      suspendPayload: { question: 'Why?' },
    });
    expect(await stream.suspendPayload).toMatchObject({ requiresApproval: false });
    const resumed = await a().resumeStream({ answer: 'because' }, { runId: stream.runId });
    expect(await resumed.text).toBe('Result: {"answer":"because"}');

    const second = await a().generate('ask again');
    const output = await a().resumeGenerate({ answer: 'ok' }, { runId: second.runId });
    expect(output).toMatchObject({ finishReason: 'stop', text: 'Result: {"answer":"ok"}' });
  });

  it('looks up the call still waiting when the stream did not show it', async () => {
    const first = await a().generate('delete rec-p1,rec-p2');
    const [one, two] = (await a().pendingToolCalls(first.runId)).map((call) => call.toolCallId);
    const approved = await a().approveToolCall({ runId: first.runId, toolCallId: one! });
    expect(await approved.finishReason).toBe('suspended');
    // The continuation shows no approval chunk: the SDK asks the server which call still waits.
    expect((await chunksOf(approved)).some((c) => c.type === 'tool-call-approval')).toBe(false);
    expect(await approved.suspendPayload).toMatchObject({
      toolCallId: two,
      requiresApproval: true,
    });
    await a().declineToolCallGenerate({ runId: first.runId, toolCallId: two! });
    expect(executionsOf('rec-p1')).toHaveLength(1);
    expect(executionsOf('rec-p2')).toHaveLength(0);
  });

  it('lists suspended runs and approvals, and decides by thread with sendToolApproval', async () => {
    const memory = { thread: uniqueId('sdk-thread'), resource: 'user-9' };
    const first = await a().generate('delete rec-sdk-thread', { memory });
    const listed = await eventually(async () => {
      const result = await a().listSuspendedRuns({
        threadId: memory.thread,
        fromDate: new Date(0),
      });
      expect(result.total).toBe(1);
      return result;
    });
    expect(listed.runs[0]).toMatchObject({ runId: first.runId, threadId: memory.thread });
    const inbox = await client.listApprovals({ agentId: 'sdk-agent', threadId: memory.thread });
    expect(inbox.approvals).toEqual([
      expect.objectContaining({ runId: first.runId, toolName: 'delete-record' }),
    ]);
    const sent = await a().sendToolApproval({
      threadId: memory.thread,
      resourceId: memory.resource,
      approved: true,
    });
    expect(sent).toEqual({ accepted: true, runId: first.runId, toolCallId: expect.any(String) });
    await eventually(async () => expect(executionsOf('rec-sdk-thread')).toHaveLength(1));
  });

  it('observes a run from an offset', async () => {
    const original = await a().stream('hello');
    const all = await chunksOf(original);
    const observed = await a().observe({ runId: original.runId, offset: 2 });
    expect(observed.startOffset).toBe(2);
    expect(await chunksOf(observed)).toEqual(all.slice(2));
    expect(await observed.text).toBe('Hello there.');
  });

  it('turns error answers into TollgateHttpError with status, code and fields', async () => {
    await expect(a().approveToolCall({ runId: uniqueId('missing') })).rejects.toMatchObject({
      name: 'TollgateHttpError',
      status: 404,
      code: 'RUN_NOT_FOUND',
    });
    const first = await a().generate('delete rec-sdk-errors');
    await expect(
      a().approveToolCallGenerate({ runId: first.runId, fingerprint: 'bad' }),
    ).rejects.toMatchObject({ status: 409, code: 'FINGERPRINT_MISMATCH' });
    await expect(a().stream('hello', { maxSteps: 0 })).rejects.toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      fields: ['options.maxSteps'],
    });
    const asked = await a().generate('ask once more');
    const error = await a()
      .resumeGenerate({ nope: true }, { runId: asked.runId })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TollgateHttpError);
    expect(error).toMatchObject({ status: 422, code: 'INVALID_RESUME_DATA' });
    const stranger = new TollgateClient({ baseUrl: server.url, token: 'wrong' });
    await expect(stranger.listApprovals()).rejects.toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
    });
    await a().declineToolCallGenerate({ runId: first.runId });
    expect(executionsOf('rec-sdk-errors')).toHaveLength(0);
  });

  it('stops reading when aborted, uses the given fetch, and reports health', async () => {
    const urls: string[] = [];
    const counting = new TollgateClient({
      baseUrl: server.url,
      token: TOKEN,
      fetch: (input, init) => {
        urls.push(input);
        return fetch(input, init);
      },
    });
    const controller = new AbortController();
    const stream = await counting
      .getAgent('sdk-agent')
      .stream('wait', { signal: controller.signal });
    const iterator = stream.fullStream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: 'start' });
    controller.abort();
    await expect(stream.text).rejects.toThrow();
    release();
    expect(urls).toEqual([`${server.url}/api/agents/sdk-agent/stream`]);
    expect(await counting.health()).toMatchObject({ ok: true, temporal: true });
    const behindProxy = (status: number, body: string) =>
      new TollgateClient({
        baseUrl: 'http://tollgate.invalid',
        token: TOKEN,
        fetch: async () => new Response(body, { status }),
      });
    expect(await behindProxy(503, '{"ok":false}').health()).toEqual({ ok: false, temporal: false });
    await expect(behindProxy(502, 'Bad gateway').listApprovals()).rejects.toMatchObject({
      status: 502,
      code: 'HTTP_502',
      message: expect.stringContaining('Bad gateway'),
    });
    expect(hidden).toEqual([]);
  });
});

describe('the client SDK bundle', () => {
  it('imports only its own, common and browser-safe client modules: no Temporal, Node, ai or zod', () => {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
    const allowed = [/^http-client\//, /^common\//, /^stream\//];
    const seen = new Set<string>();
    const bare: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = readFileSync(file, 'utf8');
      const pattern =
        /(?:^|[;\s])(?:import|export)\s*(?:[\w*${}\s,]+?\s*from\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
      for (const match of code.matchAll(pattern)) {
        const specifier = (match[1] ?? match[2])!;
        if (!specifier.startsWith('.')) bare.push(`${relative(root, file)} imports ${specifier}`);
        else visit(resolve(dirname(file), specifier));
      }
    };
    visit(resolve(root, 'http-client/index.js'));
    const files = [...seen].map((file) => relative(root, file).replaceAll('\\', '/'));
    expect(bare).toEqual([]);
    expect(files.filter((file) => !allowed.some((rule) => rule.test(file)))).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining(['stream/agent-stream.js', 'http-client/sse-parser.js']),
    );
  });
});
