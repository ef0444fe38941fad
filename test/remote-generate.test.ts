/**
 * `generate()` from a process that hosts no worker (an API server apart from its workers): it
 * reads the run's log where the run may have reached a `finish`, not after every workflow task,
 * so parking a run costs one query instead of about three; releasing it costs none, for the
 * completed run's result carries the log's end (`carriedChunks`), where a query would replay the
 * closed run on a worker.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildWorker } from '../bench/support/child.js';
import { recordCalls, type ClientCall } from '../bench/support/client-calls.js';
import { testChildWorker } from './support/child-worker.js';
import { LOAD_AGENT_ID, LOAD_TOOL, loadPrompt } from '../bench/load/agent.js';
import { Tollgate } from '../src/index.js';
import type { RunResult } from '../src/common/run-types.js';
import { runStatus } from '../src/temporal-client/run-status.js';
import { IDLE_READ_MS } from '../src/temporal-client/history-watch.js';
import { chunksOf, typesOf, uniqueId, uniqueQueue } from './support/harness.js';

const WORKER_SCRIPT = fileURLToPath(new URL('../bench/load/worker-entry.js', import.meta.url));

describe('generate() from a process without the worker', () => {
  const queue = uniqueQueue('remote-generate');
  let worker: ChildWorker;
  let tollgate: Tollgate;
  let calls: ClientCall[];
  const queries = () => calls.filter((call) => call.method === 'queryWorkflow').length;

  beforeAll(async () => {
    worker = testChildWorker('remote-generate worker', WORKER_SCRIPT, queue, {
      MAX_CACHED_WORKFLOWS: '100',
    });
    await worker.whenReady(60_000);
    // This process hosts no worker: nothing is relayed to it, so it reads logs by queries.
    tollgate = new Tollgate({ temporal: { taskQueue: queue } });
    calls = recordCalls(await tollgate.client());
  });
  afterAll(async () => {
    await tollgate?.shutdown();
    await worker?.stop('SIGTERM', 20_000);
  });

  /** Queries `task` sends; a slow machine may add one idle read per IDLE_READ_MS it takes. */
  async function counted<T>(
    task: () => Promise<T>,
  ): Promise<{ value: T; sent: number; most: number }> {
    const before = queries();
    const began = performance.now();
    const value = await task();
    const most = 1 + Math.floor((performance.now() - began) / IDLE_READ_MS);
    return { value, sent: queries() - before, most };
  }

  it('parks a run with one log query and releases it with none, and the outputs are whole', async () => {
    const agent = tollgate.getAgent(LOAD_AGENT_ID);
    const runId = uniqueId('remote-generate');
    const park = await counted(() => agent.generate(loadPrompt('a'), { runId }));
    expect(park.value).toMatchObject({ runId, finishReason: 'suspended' });
    expect(park.value.suspendPayload).toMatchObject({ toolName: LOAD_TOOL, args: { id: 'a' } });
    expect(park.sent).toBeGreaterThanOrEqual(1);
    expect(park.sent).toBeLessThanOrEqual(park.most);

    const release = await counted(() => agent.approveToolCallGenerate({ runId }));
    expect(release.value).toMatchObject({ finishReason: 'stop', text: 'Done.' });
    expect(release.value.toolResults).toEqual([
      expect.objectContaining({ toolName: LOAD_TOOL, result: { id: 'a', done: true } }),
    ]);
    expect(release.sent).toBeLessThanOrEqual(release.most - 1);
    // The result holds the log's end for streams; the run's status does not show it.
    const client = await tollgate.client();
    const result = (await client.workflow.getHandle(runId).result()) as RunResult;
    expect(result.lastChunks?.chunks.at(-1)).toMatchObject({ type: 'finish' });
    const status = await runStatus(client, LOAD_AGENT_ID, undefined, runId);
    expect(status.result).toEqual({
      finishReason: 'stop',
      text: 'Done.',
      steps: 2,
      usage: expect.any(Object),
    });
  });

  it('still streams every chunk of a run as it is logged', async () => {
    const agent = tollgate.getAgent(LOAD_AGENT_ID);
    const parked = await agent.stream(loadPrompt('b'));
    const types = typesOf(await chunksOf(parked));
    expect(types).toEqual(expect.arrayContaining(['start', 'tool-call', 'finish']));
    expect(await parked.finishReason).toBe('suspended');
    const released = await agent.approveToolCall({ runId: parked.runId });
    expect(typesOf(await chunksOf(released))).toEqual(
      expect.arrayContaining(['tool-result', 'text-delta', 'finish']),
    );
    expect(await released.text).toBe('Done.');
  });

  // Last: it stops the worker.
  it('reads a completed run to its end from its result while no worker runs', async () => {
    const agent = tollgate.getAgent(LOAD_AGENT_ID);
    const runId = uniqueId('remote-no-worker');
    await agent.generate(loadPrompt('c'), { runId });
    expect(await agent.approveToolCallGenerate({ runId })).toMatchObject({ text: 'Done.' });
    expect(await worker.stop('SIGTERM', 20_000)).toBeTruthy();
    const before = queries();
    // Without the chunks in the result, these reads would be queries no worker answers.
    const parked = await chunksOf(await agent.observe({ runId }));
    expect(parked.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'suspended' } });
    const released = await chunksOf(await agent.observe({ runId, offset: parked.length }));
    expect(typesOf(released)).toEqual(expect.arrayContaining(['tool-result', 'text-delta']));
    expect(released.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'stop' } });
    expect(queries() - before).toBe(0);
  });
});
