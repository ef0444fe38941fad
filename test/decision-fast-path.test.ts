import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { Tollgate, type Scope } from '../src/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import {
  chunksOf,
  eventually,
  hostAgents,
  recordingTool,
  testAgent,
  uniqueId,
  uniqueQueue,
} from './support/harness.js';

const deleteOnce: TurnPicker = (prompt) =>
  prompt.at(-1)?.role === 'tool'
    ? { text: 'finished' }
    : { toolCalls: [{ toolName: 'delete-record', args: { id: 'r1' } }] };

/** Counts the describes `client` sends from now on; `stop()` puts the service back. */
function countDescribes(client: Client): { count: () => number; stop: () => void } {
  const service = client.workflowService;
  const original = service.describeWorkflowExecution;
  let count = 0;
  service.describeWorkflowExecution = ((...args: Parameters<typeof original>) => {
    count++;
    return original.apply(service, args);
  }) as typeof original;
  return { count: () => count, stop: () => void (service.describeWorkflowExecution = original) };
}

describe('decisions on runs whose facts the client knows (issue 27)', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent('fast-agent', [deleteRecord.tool], deleteOnce);
  const { agent: other } = testAgent('fast-other', [], [{ text: 'hi' }]);
  const queue = uniqueQueue('fast');
  let host: Tollgate;
  /** Starts the runs, so it knows their facts; hosts nothing. */
  let starter: Tollgate;
  let plain: Client;
  const opened: Tollgate[] = [];

  beforeAll(async () => {
    host = await hostAgents([agent, other], 'fast', queue);
    starter = new Tollgate({ temporal: { taskQueue: queue } });
    plain = new Client({
      connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }),
      namespace: process.env.TEMPORAL_NAMESPACE!,
    });
  });
  afterAll(async () => {
    for (const each of opened) await each.shutdown();
    await starter.shutdown();
    await host.shutdown();
    await plain.connection.close();
  });

  /** A Tollgate that has seen none of the runs: every decision describes. */
  function stranger(): Tollgate {
    const tollgate = new Tollgate({ temporal: { taskQueue: queue } });
    opened.push(tollgate);
    return tollgate;
  }

  async function parkedRun(by: Tollgate, resource = 'acme') {
    const output = await by
      .getAgent('fast-agent')
      .generate('delete r1', { memory: { thread: uniqueId('t'), resource } });
    expect(output.finishReason).toBe('suspended');
    return output.runId;
  }

  async function updateEvents(runId: string): Promise<number> {
    const history = await plain.workflow.getHandle(runId).fetchHistory();
    return (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)
      .length;
  }

  const executionsOf = (runId: string) =>
    deleteRecord.executions.filter((e) => e.idempotencyKey.includes(runId));

  it('decides a run this client started without describing it; the tool runs once', async () => {
    const runId = await parkedRun(starter);
    // The first decision of a process may list the queue's pollers; none describes the run.
    const describes = countDescribes(await starter.client());
    try {
      const scoped = starter.getAgent('fast-agent', { scope: { resources: ['acme'] } });
      const approved = await scoped.approveToolCall({ runId });
      expect(await approved.finishReason).toBe('stop');
      expect(describes.count()).toBe(0);
    } finally {
      describes.stop();
    }
    expect(executionsOf(runId)).toHaveLength(1);
  });

  it('describes a run it did not start once, then decides from what it learned', async () => {
    const runId = await parkedRun(starter);
    const decider = stranger();
    const describes = countDescribes(await decider.client());
    try {
      const pending = await decider.getAgent('fast-agent').pendingToolCalls(runId);
      expect(pending).toHaveLength(1);
      expect(describes.count()).toBe(1);
      await decider.getAgent('fast-agent').approveToolCall({ runId });
      expect(describes.count()).toBe(1);
    } finally {
      describes.stop();
    }
    await eventually(async () => expect(executionsOf(runId)).toHaveLength(1));
  });

  const refusals: Array<[string, string, Scope | undefined, string]> = [
    ['another agent', 'fast-other', undefined, 'RUN_NOT_FOUND'],
    ['another resource', 'fast-agent', { resources: ['globex'] }, 'RUN_NOT_FOUND'],
    ['no decide right', 'fast-agent', { actions: ['read'] }, 'FORBIDDEN'],
  ];
  it.each(refusals)(
    'refuses a caller scoped to %s alike on a known and an unknown run, sending nothing',
    async (_what, agentId, scope, code) => {
      const runId = await parkedRun(starter);
      for (const decider of [starter, stranger()]) {
        const handle = decider.getAgent(agentId, scope ? { scope } : undefined);
        const refused = await handle.approveToolCall({ runId }).then(
          () => undefined,
          (error: unknown) => error as { code: string; message: string },
        );
        expect(refused?.code).toBe(code);
        if (code === 'RUN_NOT_FOUND') {
          expect(refused?.message).toBe(`No run with id "${runId}" exists for agent "${agentId}".`);
        }
        // Asked twice: the second answer of the stranger comes from what it learned.
        await expect(handle.declineToolCall({ runId })).rejects.toMatchObject({ code });
      }
      expect(await updateEvents(runId)).toBe(0);
      expect(executionsOf(runId)).toHaveLength(0);
      await starter.getAgent('fast-agent').declineToolCallGenerate({ runId });
    },
  );

  it('refuses a decision on a finished run with RUN_FINISHED, known or not', async () => {
    const runId = await parkedRun(starter);
    const decider = stranger();
    // The stranger learns the run's facts while it is open.
    expect(await decider.getAgent('fast-agent').pendingToolCalls(runId)).toHaveLength(1);
    await chunksOf(await starter.getAgent('fast-agent').approveToolCall({ runId }));
    for (const each of [starter, decider, stranger()]) {
      await expect(each.getAgent('fast-agent').approveToolCall({ runId })).rejects.toMatchObject({
        code: 'RUN_FINISHED',
      });
    }
    expect(executionsOf(runId)).toHaveLength(1);
  });

  it('answers WORKER_UNAVAILABLE for a known run once no worker polls, and sends nothing', async () => {
    const lonelyQueue = uniqueQueue('fast-lonely');
    const lonelyHost = await hostAgents([agent], 'fast-lonely', lonelyQueue);
    const knows = new Tollgate({
      temporal: { taskQueue: lonelyQueue },
      decisions: { workerSeenWithin: 2000 },
    });
    opened.push(knows);
    const runId = await parkedRun(knows);
    await lonelyHost.shutdown();
    await eventually(async () => expect((await knows.workerPollers()).pollers).toBe(0), 30_000);
    const refused = await knows
      .getAgent('fast-agent')
      .approveToolCall({ runId })
      .then(
        () => undefined,
        (error: unknown) => error as { code: string; message: string },
      );
    expect(refused?.code).toBe('WORKER_UNAVAILABLE');
    expect(refused?.message).toContain(lonelyQueue);
    expect(await updateEvents(runId)).toBe(0);
    expect(executionsOf(runId)).toHaveLength(0);
    // With a worker back, the cached "none" is asked again: the decision goes through.
    const back = await hostAgents([agent], 'fast-lonely', lonelyQueue);
    opened.push(back);
    const approved = await eventually(
      () => knows.getAgent('fast-agent').approveToolCall({ runId }),
      30_000,
    );
    expect(await approved.finishReason).toBe('stop');
    expect(executionsOf(runId)).toHaveLength(1);
  }, 120_000);
});
