import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { freePorts } from '../src/devserver/index.js';
import { Tollgate, startDevServer, type DevServer, type SuspendPayload } from '../src/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import { eventually, recordingTool, testAgent, uniqueId, uniqueQueue } from './support/harness.js';

const RUNS = 50;
const BATCH = 10;

/** "delete <id>" asks for the gated tool; after its result the model says so. */
const deleteByPrompt: TurnPicker = (prompt) => {
  const last = prompt.at(-1);
  if (last?.role === 'tool') return { text: 'deleted' };
  const id = /delete ([\w-]+)/.exec(JSON.stringify(last?.content))?.[1] ?? 'missing-id';
  return { toolCalls: [{ toolName: 'delete-record', args: { id } }] };
};

/** Runs `task` over `items`, `size` at a time. */
async function inBatches<T, R>(items: T[], size: number, task: (item: T) => Promise<R>) {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size)
    results.push(...(await Promise.all(items.slice(i, i + size).map(task))));
  return results;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

describe('a Temporal server restarted under parked runs', () => {
  let server: DevServer | undefined;
  let tollgate: Tollgate | undefined;
  let dir: string | undefined;

  afterAll(async () => {
    // Workers first: they would otherwise poll a server that is gone.
    await tollgate?.shutdown();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(`keeps ${RUNS} runs awaiting approval, lists them again and completes each once approved`, async () => {
    const began = performance.now();
    dir = await mkdtemp(join(tmpdir(), 'tollgate-server-restart-'));
    const [port, uiPort] = await freePorts(2);
    const serverOptions = {
      dbFile: join(dir, 'restart.db'),
      port: port!,
      uiPort: uiPort!,
      ...(process.env.TEMPORAL_CLI ? { cliPath: process.env.TEMPORAL_CLI } : {}),
    };
    server = await startDevServer(serverOptions);
    const serverStarted = performance.now();

    const deleteRecord = recordingTool('delete-record', { requireApproval: true });
    const { agent: definition } = testAgent('restart-ops', [deleteRecord.tool], deleteByPrompt);
    tollgate = new Tollgate({
      agents: { definition },
      temporal: {
        address: server.address,
        namespace: server.namespace,
        taskQueue: uniqueQueue('server-restart'),
      },
    });
    await tollgate.startWorker();
    const agent = tollgate.getAgent('restart-ops');
    const memory = { thread: uniqueId('thread'), resource: 'ops' };

    const ids = Array.from({ length: RUNS }, (_, i) => `rec-${i}`);
    const parked = await inBatches(ids, BATCH, async (id) => {
      const output = await agent.generate(`delete ${id}`, { memory });
      expect(output.finishReason).toBe('suspended');
      expect(output.suspendPayload).toMatchObject({ toolName: 'delete-record', args: { id } });
      return { id, runId: output.runId };
    });
    const allParked = performance.now();
    expect(deleteRecord.executions).toHaveLength(0);

    const firstPid = server.pid;
    await server.stop();
    server = await startDevServer(serverOptions);
    const restarted = performance.now();
    expect(server.pid).not.toBe(firstPid);
    expect(server.address).toBe(`127.0.0.1:${port}`);

    // The same Tollgate, client and worker: both reconnect to the restarted server themselves.
    // Until the worker answers for every run: one it has not reached yet is listed `unavailable`,
    // from its search attributes alone, with no calls (a loaded machine reconnects later).
    const listed = await eventually(async () => {
      const found = await agent.listSuspendedRuns({ threadId: memory.thread, perPage: 100 });
      expect(found.total).toBe(RUNS);
      expect(found.runs).toHaveLength(RUNS);
      expect(found.runs.filter((run) => run.unavailable).map((run) => run.runId)).toEqual([]);
      return found;
    }, 60_000);
    const relisted = performance.now();
    expect(listed.runs.map((run) => run.runId).sort()).toEqual(
      parked.map((run) => run.runId).sort(),
    );
    const calls = new Map<string, SuspendPayload>();
    for (const run of listed.runs) {
      expect(run).toMatchObject({ status: 'suspended', agentId: 'restart-ops', resourceId: 'ops' });
      expect(run.toolCalls).toHaveLength(1);
      const [call] = run.toolCalls;
      expect(call).toMatchObject({ toolName: 'delete-record', requiresApproval: true });
      calls.set(run.runId, call!);
    }
    expect(deleteRecord.executions).toHaveLength(0);

    const approvalMs: number[] = [];
    const finished = await inBatches(parked, BATCH, async ({ id, runId }) => {
      const call = calls.get(runId)!;
      expect(call.args).toEqual({ id });
      const sent = performance.now();
      const output = await agent.approveToolCallGenerate({
        runId,
        toolCallId: call.toolCallId,
        fingerprint: call.fingerprint,
      });
      approvalMs.push(performance.now() - sent);
      return { runId, finishReason: output.finishReason, text: output.text };
    });
    const approvedAll = performance.now();

    expect(finished).toEqual(
      parked.map(({ runId }) => ({ runId, finishReason: 'stop', text: 'deleted' })),
    );
    // Once per run: 50 executions, one per idempotency key, each with its run's record.
    expect(deleteRecord.executions).toHaveLength(RUNS);
    const byRun = new Map(
      deleteRecord.executions.map((e) => [e.idempotencyKey.split(':')[0]!, e.input]),
    );
    expect(new Set(deleteRecord.executions.map((e) => e.idempotencyKey)).size).toBe(RUNS);
    expect(Object.fromEntries(byRun)).toEqual(
      Object.fromEntries(parked.map(({ id, runId }) => [runId, { id }])),
    );
    await eventually(async () =>
      expect((await agent.listSuspendedRuns({ threadId: memory.thread })).total).toBe(0),
    );

    console.log(
      `server-restart: ${RUNS} parked runs held across the restart; ${seconds(performance.now() - began)} in all ` +
        `(server start ${seconds(serverStarted - began)}, parking ${seconds(allParked - serverStarted)}, ` +
        `server stop + start ${seconds(restarted - allParked)}, all ${RUNS} listed again after ` +
        `${seconds(relisted - restarted)}, approve-all ${seconds(approvedAll - relisted)}: ` +
        `one approval to 'stop' took ${Math.round(Math.min(...approvalMs))}-${Math.round(Math.max(...approvalMs))} ms)`,
    );
  }, 300_000);
});
