/**
 * A2A while no worker hosts the agent: a new task is accepted and waits, an answer to a waiting
 * call is refused with `WORKER_UNAVAILABLE` and changes nothing, and a worker started later
 * finishes the runs.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { Tollgate } from '../src/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import {
  deleteByPrompt,
  eventually,
  hostAgents,
  recordingTool,
  testAgent,
  uniqueQueue,
} from './support/harness.js';
import { a2aClient, codeOf, PERSON, send } from './support/a2a-clients.js';

describe('A2A with no worker hosting the agent', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent('a2a-away', [deleteRecord.tool], deleteByPrompt);
  const ran = (id: string) =>
    deleteRecord.executions.filter((e) => (e.input as { id: string }).id === id);
  const queue = uniqueQueue('a2a-away');
  const hosts: Tollgate[] = [];
  let front: Tollgate;
  let server: ListeningServer;
  let person: Client;

  beforeAll(async () => {
    hosts.push(await hostAgents([agent], 'a2a-away', queue));
    // The server's runtime hosts nothing: the agent's worker comes and goes on its own.
    front = new Tollgate({ temporal: { taskQueue: queue }, decisions: { workerSeenWithin: 2000 } });
    server = await createTollgateServer({
      tollgate: front,
      auth: { tokens: [{ token: PERSON, id: 'alice', roles: ['ops'] }] },
      a2a: { agents: ['a2a-away'] },
      logError: () => undefined,
    }).listen({ port: 0 });
    person = await a2aClient(`${server.url}/a2a/a2a-away`, PERSON);
  });
  afterAll(async () => {
    await server?.close();
    await front?.shutdown();
    for (const host of hosts) await host.shutdown().catch(() => undefined);
  });

  it('a new task answers working, an answer is refused with WORKER_UNAVAILABLE changing nothing, and a worker started later finishes the run: the tool ran once', async () => {
    const parked = (await send(person, 'delete rec-w1')) as Task;
    expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await hosts[0]!.shutdown();
    await eventually(async () => expect((await front.workerPollers()).pollers).toBe(0), 30_000);

    const fresh = (await send(person, 'delete rec-w2', { immediately: true })) as Task;
    expect(fresh.status?.state).toBe(TaskState.TASK_STATE_WORKING);

    const handle = (await front.client()).workflow.getHandle(parked.id);
    const events = (await handle.fetchHistory()).events!.length;
    const refused = await send(person, 'approve', { taskId: parked.id }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(codeOf(refused)).toBe('WORKER_UNAVAILABLE');
    expect(refused?.message).toContain('Start a worker');
    expect((await handle.fetchHistory()).events!.length).toBe(events);
    expect(ran('rec-w1')).toHaveLength(0);

    hosts.push(await hostAgents([agent], 'a2a-away', queue));
    const done = (await send(person, 'approve', { taskId: parked.id })) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(ran('rec-w1')).toHaveLength(1);
    // The task opened while no worker ran went on once one did, up to its gate.
    const waits = await eventually(async () => {
      const now = await person.getTask({ tenant: '', id: fresh.id, historyLength: 0 });
      if (now.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) throw new Error('working');
      return now;
    }, 30_000);
    expect(waits.id).toBe(fresh.id);
    expect(ran('rec-w2')).toHaveLength(0);
  });
});
