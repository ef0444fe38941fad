/**
 * Long runs (issue 13, finding 3): a run continues as new at step boundaries and stays one run
 * for every client. The agents continue after 40 events (about every 3 steps) instead of
 * Temporal's thousands, so a run of 14 steps spans several executions.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { Agent, createTool, TollgateError, type Chunk, type Tollgate } from '../src/index.js';
import type { ChunkSlice } from '../src/common/chunks.js';
import type { JsonValue } from '../src/common/json.js';
import { QUERIES, THREAD_MESSAGES, threadWorkflowId } from '../src/common/wire.js';
import type { TollgateClient } from '../src/http-client/index.js';
import type { ListeningServer } from '../src/server/index.js';
import { scriptedModel, type TurnPicker } from '../src/testing/index.js';
import { childRunId } from '../src/workflows/delegation.js';
import { runFailure } from './support/run-failure.js';
import { serveOverHttp } from './support/served.js';
import { chunksOf, executionsOf, recordingTool, uniqueId } from './support/harness.js';

const TOKEN = 'long-runs-token-0123456789';
const STEPS = 14;
/** Steps whose tool call is gated: the model asks to delete a record there. */
const GATED = new Map([
  [5, 'rec-1'],
  [11, 'rec-2'],
]);

/** Step n (1-based) counts `n`, or deletes a record at a gated step; the last one answers. */
const longScript: TurnPicker = (prompt) => {
  const done = prompt.filter((message) => message.role === 'tool').length;
  const step = done + 1;
  if (step === STEPS) return { text: `Finished after ${done} tool steps.` };
  const record = GATED.get(step);
  return record
    ? { toolCalls: [{ toolName: 'delete-record', args: { id: record } }] }
    : {
        text: [`Step ${step} `, 'counting.'],
        toolCalls: [{ toolName: 'count', args: { id: `${step}` } }],
      };
};

describe('long runs continue as new', () => {
  const count = recordingTool('count');
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const agent = new Agent({
    id: 'long-agent',
    model: scriptedModel(longScript, 'long'),
    tools: { count: count.tool, 'delete-record': deleteRecord.tool },
    defaultOptions: { maxSteps: 50 },
    memory: { lastMessages: 100 },
    history: { continueAfterEvents: 40 },
  });
  const bigStep = createTool({
    id: 'noop',
    inputSchema: z.object({}),
    execute: async () => ({ ok: true }),
  });
  // One step of ~300 KB of text, against a history that may hold 200 KB.
  const bulky = new Agent({
    id: 'bulky-agent',
    model: scriptedModel((prompt) =>
      prompt.some((message) => message.role === 'tool')
        ? { text: 'done' }
        : { text: 'y'.repeat(300_000), toolCalls: [{ toolName: 'noop', args: {} }] },
    ),
    tools: { noop: bigStep },
    history: { failAtBytes: 200_000 },
  });
  // A sub-agent that continues as new between its two gated calls, under a parent that does not.
  const subCount = recordingTool('count');
  const subDelete = recordingTool('delete-record', { requireApproval: true });
  const subScript: TurnPicker = (prompt) => {
    const step = prompt.filter((message) => message.role === 'tool').length + 1;
    if (step === 8) return { text: 'Worker done.' };
    if (step === 2 || step === 7) {
      return {
        toolCalls: [{ toolName: 'delete-record', args: { id: `sub-${step === 2 ? 1 : 2}` } }],
      };
    }
    return { toolCalls: [{ toolName: 'count', args: { id: `${step}` } }] };
  };
  const worker = new Agent({
    id: 'worker-agent',
    description: 'Works long',
    model: scriptedModel(subScript, 'worker'),
    tools: { count: subCount.tool, 'delete-record': subDelete.tool },
    history: { continueAfterEvents: 40 },
  });
  const boss = new Agent({
    id: 'boss-agent',
    model: scriptedModel((prompt) =>
      prompt.some((message) => message.role === 'tool')
        ? { text: 'Boss done.' }
        : { toolCalls: [{ toolName: 'agent-worker', args: { message: 'work' } }] },
    ),
    agents: { worker },
  });
  let tollgate: Tollgate;
  let server: ListeningServer;
  let remote: TollgateClient;
  let client: Client;

  beforeAll(async () => {
    const { Tollgate } = await import('../src/index.js');
    tollgate = new Tollgate({
      agents: { 'long-agent': agent, 'bulky-agent': bulky, 'boss-agent': boss },
      temporal: { taskQueue: uniqueId('test-long-runs') },
    });
    await tollgate.startWorker();
    ({ server, remote } = await serveOverHttp(tollgate, TOKEN));
    client = await tollgate.client();
  });
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
  });

  const a = () => tollgate.getAgent('long-agent');

  /** Reads the SSE observe stream from `offset` over HTTP: each event's id and chunk. */
  async function observedOverSse(
    runId: string,
    offset: number,
  ): Promise<Array<{ id: number; chunk: Chunk }>> {
    const response = await fetch(`${server.url}/api/agents/long-agent/observe`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ runId, offset }),
    });
    expect(response.status).toBe(200);
    const events: Array<{ id: number; chunk: Chunk }> = [];
    for (const block of (await response.text()).split('\n\n')) {
      const id = /^id: (\d+)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (id !== undefined && data !== undefined) {
        events.push({ id: Number(id), chunk: JSON.parse(data) as Chunk });
      }
    }
    return events;
  }

  function expectWholeRun(chunks: Chunk[]): void {
    const steps = chunks.filter((c) => c.type === 'step-start').map((c) => c.payload.step);
    expect(steps).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
    const calls = chunks.filter((c) => c.type === 'tool-call').map((c) => c.payload.toolCallId);
    expect(new Set(calls).size).toBe(calls.length);
    expect(chunks.filter((c) => c.type === 'start')).toHaveLength(1);
  }

  it('completes a run over several executions: one log, gated calls run once, duplicates refused, usage, memory and audit whole', async () => {
    const memory = { thread: uniqueId('long'), resource: 'user-1' };
    const first = await a().stream('Count, please.', { memory });
    const runId = first.runId;
    // An in-process observer and an HTTP one attach at once and follow every execution.
    const watcher = a().observe({ runId, offset: 0 });
    const remoteWatcher = remote.getAgent('long-agent').observe({ runId, offset: 0 });

    const firstChunks = await chunksOf(first);
    expect(await first.finishReason).toBe('suspended');
    const gate1 = firstChunks.find((c) => c.type === 'tool-call-approval')!;
    expect(gate1.payload.args).toEqual({ id: 'rec-1' });
    expect(await executionsOf(client, runId)).toBeGreaterThanOrEqual(2);
    const executionsAtGate = await executionsOf(client, runId);

    const second = await a().approveToolCall({ runId, toolCallId: gate1.payload.toolCallId });
    const secondChunks = await chunksOf(second);
    expect(await second.finishReason).toBe('suspended');
    const gate2 = secondChunks.find((c) => c.type === 'tool-call-approval')!;
    expect(gate2.payload.args).toEqual({ id: 'rec-2' });
    expect(await executionsOf(client, runId)).toBeGreaterThan(executionsAtGate);

    // The first call was decided two executions ago: a second decision is still refused.
    const again = a().approveToolCall({ runId, toolCallId: gate1.payload.toolCallId });
    await expect(again).rejects.toBeInstanceOf(TollgateError);
    await expect(again).rejects.toMatchObject({ code: 'TOOL_CALL_ALREADY_DECIDED' });

    // An observer from an offset an earlier execution logged reads it from that execution.
    const early = await chunksOf(await a().observe({ runId, offset: 3 }));
    expect(early).toEqual(firstChunks.slice(3));

    const executionsAtGate2 = await executionsOf(client, runId);
    const thirdStart = await second.nextOffset;
    const third = await a().approveToolCall({ runId, toolCallId: gate2.payload.toolCallId });
    // Attached while the run goes on, before it continues as new again.
    const midway = await a().observe({ runId, offset: thirdStart });
    const thirdChunks = await chunksOf(third);
    expect(await third.finishReason).toBe('stop');
    expect(await third.text).toMatch(/Finished after 13 tool steps\.$/);

    // Every chunk exactly once, in order, across executions: the three streams are the log.
    const all = [...firstChunks, ...secondChunks, ...thirdChunks];
    expectWholeRun(all);
    const watched = await chunksOf(await watcher);
    expect(watched).toEqual(firstChunks);
    expect(await chunksOf(midway)).toEqual(thirdChunks);
    expect(await executionsOf(client, runId)).toBeGreaterThan(executionsAtGate2);
    const log = await readWholeLog(runId);
    for (const [start, chunks] of [
      [0, firstChunks],
      [thirdStart, thirdChunks],
    ] as const) {
      const sse = await observedOverSse(runId, start);
      expect(sse.map((event) => event.id)).toEqual(chunks.map((_, index) => start + index));
      expect(sse.map((event) => event.chunk)).toEqual(chunks);
    }
    const remoteChunks = await chunksOf(await remoteWatcher);
    expect(remoteChunks).toEqual(firstChunks);
    expectWholeRun(log);
    expect(log).toHaveLength((await first.nextOffset) + secondChunks.length + thirdChunks.length);

    // Each gated call executed exactly once; each counting step once.
    expect(deleteRecord.executions.map((e) => (e.input as { id: string }).id)).toEqual([
      'rec-1',
      'rec-2',
    ]);
    expect(count.executions).toHaveLength(STEPS - 1 - GATED.size);

    // Usage of every step, summed over all executions.
    const finishes = log.filter((c) => c.type === 'step-finish');
    const summed = finishes.reduce((sum, c) => sum + c.payload.usage.totalTokens, 0);
    const output = await client.workflow.getHandle(runId).result();
    expect(summed).toBeGreaterThan(0);
    expect((output as { usage: { totalTokens: number } }).usage.totalTokens).toBe(summed);
    expect((output as { steps: number }).steps).toBe(STEPS);

    // The memory thread holds the run's messages once: user, STEPS-1 (assistant, tool), answer.
    const thread = await client.workflow
      .getHandle(threadWorkflowId('long-agent', memory.resource, memory.thread))
      .query<JsonValue[], [{ last: number }]>(THREAD_MESSAGES.messages, { last: 1000 });
    expect(thread).toHaveLength(1 + 2 * (STEPS - 1) + 1);
    expect(JSON.stringify(thread).match(/Count, please\./g)).toHaveLength(1);

    // The audit trail spans every execution: both requests, both approvals, the refusal.
    const audit = await a().getAuditTrail(runId);
    const kinds = audit.map((entry) => `${entry.type}:${entry.toolCallId}`);
    for (const gate of [gate1, gate2]) {
      expect(kinds).toContain(`request:${gate.payload.toolCallId}`);
      expect(kinds).toContain(`decision:${gate.payload.toolCallId}`);
    }
    expect(audit.filter((entry) => entry.type === 'rejected-decision')).toHaveLength(0);
    expect(await executionsOf(client, runId)).toBeGreaterThanOrEqual(4);
  }, 120_000);

  it('fails a step too large for one history with RUN_HISTORY_TOO_LARGE, before its tools run', async () => {
    const b = tollgate.getAgent('bulky-agent');
    const stream = await b.stream('Write a lot.');
    const chunks = await chunksOf(stream);
    expect(await stream.finishReason).toBe('error');
    const error = chunks.find((c) => c.type === 'error')!;
    expect(error).toBeDefined();
    expect(error.type === 'error' && error.payload.code).toBe('RUN_HISTORY_TOO_LARGE');
    expect(error.type === 'error' && error.payload.error).toContain('history.failAtBytes (200000)');
    expect(chunks.some((c) => c.type === 'tool-result')).toBe(false);
    const failure = await runFailure(tollgate, stream.runId);
    expect(failure.type).toBe('tollgate.RUN_HISTORY_TOO_LARGE');
  }, 60_000);

  it("routes a sub-agent's gated calls through its parent before and after the sub-agent continues as new", async () => {
    const top = tollgate.getAgent('boss-agent');
    const first = await top.stream('Ask the worker.');
    const gate1 = (await chunksOf(first)).find((c) => c.type === 'tool-call-approval')!;
    expect(gate1.payload.args).toEqual({ id: 'sub-1' });
    const second = await top.approveToolCall({
      runId: first.runId,
      toolCallId: gate1.payload.toolCallId,
    });
    const gate2 = (await chunksOf(second)).find((c) => c.type === 'tool-call-approval')!;
    expect(gate2.payload.args).toEqual({ id: 'sub-2' });
    const child = gate2.payload.toolCallId.split('/')[0]!;
    expect(await executionsOf(client, childRunId(first.runId, child))).toBeGreaterThanOrEqual(2);
    const third = await top.approveToolCall({
      runId: first.runId,
      toolCallId: gate2.payload.toolCallId,
    });
    await chunksOf(third);
    expect(await third.finishReason).toBe('stop');
    expect(subDelete.executions.map((e) => (e.input as { id: string }).id)).toEqual([
      'sub-1',
      'sub-2',
    ]);
  }, 120_000);

  /** The run's whole log, read page by page from the workflow id (any execution answers). */
  async function readWholeLog(runId: string): Promise<Chunk[]> {
    const chunks: Chunk[] = [];
    for (;;) {
      let slice = await client.workflow
        .getHandle(runId)
        .query<ChunkSlice, [{ offset: number }]>(QUERIES.chunks, { offset: chunks.length });
      while (slice.previousExecution && chunks.length < (slice.base ?? 0)) {
        slice = await client.workflow
          .getHandle(runId, slice.previousExecution)
          .query<ChunkSlice, [{ offset: number }]>(QUERIES.chunks, { offset: chunks.length });
      }
      expect(slice.offset).toBe(chunks.length);
      chunks.push(...slice.chunks);
      if (slice.closed && chunks.length >= slice.total) return chunks;
    }
  }
});
