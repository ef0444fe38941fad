import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  SIGNALS,
  Tollgate,
  UPDATES,
  type AuditEntry,
  type DecisionSettings,
} from '../src/index.js';
import { createTollgateServer } from '../src/server/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import { workflowBundle } from '../src/worker.js';
import {
  eventually,
  hostAgents,
  publishWithoutWorker,
  recordingTool,
  testAgent,
  uniqueQueue,
} from './support/harness.js';
import { cli } from './support/cli.js';
import { patchesOf } from './support/patch-markers.js';

const deleteOnce: TurnPicker = (prompt) =>
  prompt.at(-1)?.role === 'tool'
    ? { text: 'finished' }
    : { toolCalls: [{ toolName: 'delete-record', args: { id: 'r1' } }] };

const TOKEN = 'deadline-token-0123456789';

describe('decision deadlines (issue 12, finding 1)', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent('deadline-agent', [deleteRecord.tool], deleteOnce);
  let plain: Client;
  const opened: Tollgate[] = [];

  beforeAll(async () => {
    plain = new Client({
      connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }),
      namespace: process.env.TEMPORAL_NAMESPACE!,
    });
  });
  afterAll(async () => {
    for (const tollgate of opened) await tollgate.shutdown();
    await plain.connection.close();
  });

  async function host(queue: string): Promise<Tollgate> {
    const tollgate = await hostAgents([agent], 'deadline', queue);
    opened.push(tollgate);
    return tollgate;
  }

  function client(queue: string, decisions: DecisionSettings): Tollgate {
    const tollgate = new Tollgate({ temporal: { taskQueue: queue }, decisions });
    opened.push(tollgate);
    return tollgate;
  }

  async function parkedRun(tollgate: Tollgate) {
    const output = await tollgate.getAgent('deadline-agent').generate('delete r1');
    expect(output.finishReason).toBe('suspended');
    return { runId: output.runId, toolCallId: output.suspendPayload!.toolCallId };
  }

  async function eventCount(runId: string, kind: 'update' | 'signal'): Promise<number> {
    const history = await plain.workflow.getHandle(runId).fetchHistory();
    return (history.events ?? []).filter((e) =>
      kind === 'update'
        ? e.workflowExecutionUpdateAcceptedEventAttributes
        : e.workflowExecutionSignaledEventAttributes,
    ).length;
  }

  const executionsOf = (runId: string) =>
    deleteRecord.executions.filter((e) => e.idempotencyKey.includes(runId));

  it('answers at once while no worker runs, and a decision delivered after its deadline never applies', async () => {
    const queue = uniqueQueue('deadline');
    const first = await host(queue);
    const run = await parkedRun(first);
    await first.shutdown();

    // Right after the shutdown Temporal still counts the worker: the SDK sends, and gives up
    // within its wait. The update it abandoned carries a deadline 0.5 s after that wait.
    const hopeful = client(queue, { wait: 1500, deadlineMargin: 500 });
    await expect(
      hopeful.getAgent('deadline-agent').approveToolCall({ runId: run.runId }),
    ).rejects.toMatchObject({ code: 'DECISION_NOT_CONFIRMED' });

    // Once the worker is seen as gone, decisions are not sent at all: SDK and HTTP alike.
    const decider = client(queue, { workerSeenWithin: 2000 });
    await eventually(async () => expect((await decider.workerPollers()).pollers).toBe(0), 30_000);
    await expect(
      decider.getAgent('deadline-agent').approveToolCall({ runId: run.runId }),
    ).rejects.toMatchObject({ code: 'WORKER_UNAVAILABLE' });
    const { app } = createTollgateServer({
      tollgate: decider,
      auth: { tokens: [{ token: TOKEN, id: 'alice' }] },
    });
    const answer = await app.request('/api/agents/deadline-agent/approve-tool-call', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ runId: run.runId }),
    });
    expect(answer.status).toBe(503);
    expect(await answer.json()).toMatchObject({ error: { code: 'WORKER_UNAVAILABLE' } });
    const health = await app.request('/api/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      ok: true,
      temporal: true,
      workers: { taskQueue: queue, pollers: 0 },
    });

    // A raw signal from another service, bounded by its own deadline, lands in history now.
    const deadline = new Date(Date.now() + 500).toISOString();
    await plain.workflow.getHandle(run.runId).signal(SIGNALS.approve, {
      toolCallId: run.toolCallId,
      deadline,
      decidedBy: { id: 'other-service' },
    });
    while (Date.now() <= Date.parse(deadline) + 200) await sleep(100);

    // The worker comes back after every deadline passed: nothing applies, the late signal is
    // audited as refused, and the run still waits.
    const second = await host(queue);
    const agentClient = second.getAgent('deadline-agent');
    const refused = await eventually(async () => {
      const entries = await agentClient.getAuditTrail(run.runId);
      const found = entries.find((e) => e.type === 'rejected-decision');
      expect(found).toBeDefined();
      return found as Extract<AuditEntry, { type: 'rejected-decision' }>;
    }, 30_000);
    expect(refused).toMatchObject({
      kind: 'approve',
      channel: 'signal',
      code: 'DECISION_DEADLINE_PASSED',
      toolCallId: run.toolCallId,
      decidedBy: { id: 'other-service' },
    });
    expect(await agentClient.pendingToolCalls(run.runId)).toHaveLength(1);
    expect(await eventCount(run.runId, 'update')).toBe(0);
    expect(executionsOf(run.runId)).toHaveLength(0);
    expect((await agentClient.getAuditTrail(run.runId)).some((e) => e.type === 'decision')).toBe(
      false,
    );

    // A decision in time applies normally, exactly once.
    const done = await agentClient.approveToolCallGenerate({ runId: run.runId });
    expect(done.finishReason).toBe('stop');
    expect(executionsOf(run.runId)).toHaveLength(1);
    expect(await eventCount(run.runId, 'update')).toBe(1);
  }, 180_000);

  it('refuses an update after its deadline in the validator, writing nothing to history', async () => {
    const tollgate = await host(uniqueQueue('deadline'));
    const run = await parkedRun(tollgate);
    const events = (await plain.workflow.getHandle(run.runId).fetchHistory()).events!.length;
    const late = plain.workflow.getHandle(run.runId).executeUpdate(UPDATES.approveToolCall, {
      args: [{ toolCallId: run.toolCallId, deadline: new Date(Date.now() - 1000).toISOString() }],
    });
    await expect(late).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    await expect(late).rejects.toMatchObject({
      cause: { type: 'tollgate.DECISION_DEADLINE_PASSED' },
    });
    expect((await plain.workflow.getHandle(run.runId).fetchHistory()).events!.length).toBe(events);
    const malformed = plain.workflow.getHandle(run.runId).executeUpdate(UPDATES.approveToolCall, {
      args: [{ toolCallId: run.toolCallId, deadline: 'tomorrow' }],
    });
    await expect(malformed).rejects.toMatchObject({ cause: { type: 'tollgate.INVALID_DECISION' } });
    expect(await tollgate.getAgent('deadline-agent').pendingToolCalls(run.runId)).toHaveLength(1);
    expect(executionsOf(run.runId)).toHaveLength(0);
  }, 60_000);

  it('applies a signal whose deadline has not passed, and its history replays', async () => {
    const tollgate = await host(uniqueQueue('deadline'));
    const run = await parkedRun(tollgate);
    await plain.workflow.getHandle(run.runId).signal(SIGNALS.approve, {
      toolCallId: run.toolCallId,
      deadline: new Date(Date.now() + 60_000).toISOString(),
    });
    await expect(plain.workflow.getHandle(run.runId).result()).resolves.toMatchObject({
      finishReason: 'stop',
    });
    expect(executionsOf(run.runId)).toHaveLength(1);
    const history = await plain.workflow.getHandle(run.runId).fetchHistory();
    expect(patchesOf(history)).toContain('tollgate-decision-deadline');
    await expect(
      Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, run.runId),
    ).resolves.toBeUndefined();
  }, 60_000);

  it('tollgate doctor reports the workers of a task queue, and approve exits 7 when none polls', async () => {
    const served = uniqueQueue('deadline');
    await host(served);
    const doctor = await cli(['doctor', '--task-queue', served, '--json']);
    expect(doctor.code).toBe(0);
    expect(JSON.parse(doctor.stdout)).toMatchObject({
      temporal: true,
      workers: { taskQueue: served },
    });
    expect((JSON.parse(doctor.stdout) as { workers: { pollers: number } }).workers.pollers).toBe(1);

    const empty = uniqueQueue('deadline-empty');
    const unserved = await cli(['doctor', '--task-queue', empty]);
    expect(unserved.code).toBe(7);
    expect(unserved.stdout).toContain(`Task queue ${empty}: no worker polling`);

    // A run on a queue no worker ever polled (its agent listed, as by workers now gone): the CLI
    // does not wait for it.
    const starter = client(empty, {});
    await publishWithoutWorker(starter, empty, [agent], 'gone-worker');
    const stream = await starter.getAgent('deadline-agent').stream('delete r1');
    const approve = await cli(['approve', stream.runId, '--task-queue', empty, '--json']);
    expect(approve.code).toBe(7);
    expect(JSON.parse(approve.stderr)).toMatchObject({ error: { code: 'WORKER_UNAVAILABLE' } });
  }, 120_000);
});
