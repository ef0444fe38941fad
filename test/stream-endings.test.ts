import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowIdReusePolicy } from '@temporalio/client';
import { Agent, Tollgate, type Chunk } from '../src/index.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import { SA_KEYS } from '../src/common/search-attribute-keys.js';
import { AGENT_RUN_WORKFLOW } from '../src/common/wire.js';
import type { RunInput } from '../src/common/run-types.js';
import type { TollgateClient } from '../src/http-client/index.js';
import type { ListeningServer } from '../src/server/index.js';
import { serveOverHttp } from './support/served.js';
import {
  chunksOf,
  eventually,
  gatedTestAgent,
  hostAgents,
  uniqueId,
  uniqueQueue,
} from './support/harness.js';

const TOKEN = 'endings-token-0123456789';

/** Runs ended from outside Tollgate (issue 13, finding 2): streams end with the real outcome. */
describe('streams of runs ended from outside', () => {
  const { agent, executions } = gatedTestAgent('endings-agent');
  let tollgate: Tollgate;
  let server: ListeningServer;
  let remote: TollgateClient;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'endings');
    ({ server, remote } = await serveOverHttp(tollgate, TOKEN));
  });
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
  });

  const a = () => tollgate.getAgent('endings-agent');

  async function approvalsListed(runId: string): Promise<boolean> {
    const response = await fetch(`${server.url}/api/approvals?agentId=endings-agent&perPage=100`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const body = (await response.json()) as { approvals: Array<{ runId: string }> };
    return body.approvals.some((approval) => approval.runId === runId);
  }

  async function suspendedListed(runId: string): Promise<boolean> {
    const { runs } = await a().listSuspendedRuns({ perPage: 100 });
    return runs.some((run) => run.runId === runId);
  }

  function expectEnding(chunks: Chunk[], code: string): Chunk & { type: 'error' } {
    const last = chunks.at(-1)!;
    expect(last.type).toBe('error');
    if (last.type !== 'error') throw new Error('unreachable');
    expect(last.payload.code).toBe(code);
    expect(chunks.some((chunk) => chunk.type === 'finish')).toBe(false);
    return last;
  }

  it('ends open SDK and HTTP observers with RUN_TERMINATED and drops the run from the listings', async () => {
    const parked = await a().stream('Delete rec-1.');
    expect(await parked.finishReason).toBe('suspended');
    const offset = await parked.nextOffset;
    await eventually(async () => expect(await suspendedListed(parked.runId)).toBe(true));
    await eventually(async () => expect(await approvalsListed(parked.runId)).toBe(true));

    const inProcess = await a().observe({ runId: parked.runId, offset });
    const overHttp = await remote
      .getAgent('endings-agent')
      .observe({ runId: parked.runId, offset });
    const handle = (await tollgate.client()).workflow.getHandle(parked.runId);
    await handle.terminate('operator pulled the plug');

    const seen = expectEnding(await chunksOf(inProcess), 'RUN_TERMINATED');
    expect(seen.payload.reason).toBe('operator pulled the plug');
    expect(seen.payload.error).toContain('operator pulled the plug');
    expect(await inProcess.finishReason).toBe('error');
    expect(await inProcess.nextOffset).toBe(offset);

    const seenOverHttp = expectEnding(await chunksOf(overHttp), 'RUN_TERMINATED');
    expect(seenOverHttp.payload).toEqual(seen.payload);
    expect(await overHttp.finishReason).toBe('error');

    // A stream opened after the end says the same.
    const late = await a().observe({ runId: parked.runId, offset });
    expectEnding(await chunksOf(late), 'RUN_TERMINATED');

    await eventually(async () => expect(await suspendedListed(parked.runId)).toBe(false));
    await eventually(async () => expect(await approvalsListed(parked.runId)).toBe(false));
    // A closed run cannot upsert its search attributes: its last status stays, and the listings
    // go by ExecutionStatus instead (docs/limits.md).
    const closed = await handle.describe();
    expect([closed.status.name, closed.typedSearchAttributes.get(SA_KEYS.status)]).toEqual([
      'TERMINATED',
      'awaiting-approval',
    ]);
    expect(executions).toHaveLength(0);
  });

  it('ends an open observer with RUN_TIMED_OUT when the execution timeout closes the run', async () => {
    const runId = uniqueId('timed-out');
    const client = await tollgate.client();
    const input: RunInput = {
      agentId: 'endings-agent',
      messages: [{ role: 'user', content: 'Delete rec-1.' }],
      requestPolicy: { kind: 'agent-default' },
      requestContext: {},
    };
    await client.workflow.start(AGENT_RUN_WORKFLOW, {
      workflowId: runId,
      taskQueue: tollgate.taskQueue,
      args: [input],
      workflowExecutionTimeout: '8 seconds',
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [
        { key: SA_KEYS.agentId, value: 'endings-agent' },
        { key: SA_KEYS.status, value: 'running' },
      ],
    });
    const first = await a().observe({ runId });
    expect(await first.finishReason).toBe('suspended');
    const open = await remote
      .getAgent('endings-agent')
      .observe({ runId, offset: await first.nextOffset });
    const ending = expectEnding(await chunksOf(open), 'RUN_TIMED_OUT');
    expect(ending.payload.error).toContain(runId);
    const output = await a().observe({ runId, offset: await first.nextOffset });
    expectEnding(await chunksOf(output), 'RUN_TIMED_OUT');
    expect((await client.workflow.getHandle(runId).describe()).status.name).toBe('TIMED_OUT');
    await eventually(async () => expect(await suspendedListed(runId)).toBe(false));
  });
});

/** Issue 25.6: an observer of a run no worker answers for ends typed, not with a raw gRPC error. */
describe('an observer while no worker runs', () => {
  const { agent, executions } = gatedTestAgent('endings-no-worker');
  const opened: Tollgate[] = [];
  afterAll(async () => {
    for (const tollgate of opened) await tollgate.shutdown().catch(() => undefined);
  });

  it('ends with WORKER_UNAVAILABLE after its patience, and the run still waits', async () => {
    const queue = uniqueQueue('endings-no-worker');
    const worker = await hostAgents([agent], 'endings', queue);
    const parked = await worker.getAgent('endings-no-worker').generate('delete rec-1');
    expect(parked.finishReason).toBe('suspended');
    await worker.shutdown();

    const observer = new Tollgate({ temporal: { taskQueue: queue } });
    opened.push(observer);
    const stream = await observer.getAgent('endings-no-worker').observe({ runId: parked.runId });
    await expect(chunksOf(stream)).rejects.toMatchObject({ code: 'WORKER_UNAVAILABLE' });
    const run = await (await observer.client()).workflow.getHandle(parked.runId).describe();
    expect(run.status.name).toBe('RUNNING');
    expect(executions).toHaveLength(0);
  }, 180_000);

  it('ends a run Tollgate failed with the code its failure names, though no worker can read its log', async () => {
    // Its one model step replies with 12,000 characters, over its limit of 10,000 bytes.
    const failing = new Agent({
      id: 'endings-failed-no-worker',
      model: scriptedModel([{ text: ['x'.repeat(12_000)] }], 'endings-failed'),
      modelStep: { maxOutputBytes: 10_000 },
    });
    const queue = uniqueQueue('endings-failed-no-worker');
    const worker = await hostAgents([failing], 'endings', queue);
    const failed = await worker.getAgent('endings-failed-no-worker').generate('write');
    expect(failed.errorCode).toBe('PAYLOAD_TOO_LARGE');
    await worker.shutdown();

    // No worker answers the query for the closed run's log: after its patience the stream ends
    // with the run's own code, from the failure's type, not with RUN_FAILED.
    const observer = new Tollgate({ temporal: { taskQueue: queue } });
    opened.push(observer);
    const stream = await observer
      .getAgent('endings-failed-no-worker')
      .observe({ runId: failed.runId });
    const chunks = await chunksOf(stream);
    expect(chunks.at(-1)).toMatchObject({
      type: 'error',
      payload: {
        code: 'PAYLOAD_TOO_LARGE',
        error: expect.stringMatching(/^Run \S+ failed: .*over the limit of 10000 bytes/),
      },
    });
    expect(await stream.finishReason).toBe('error');
  }, 180_000);
});
