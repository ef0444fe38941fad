/**
 * Issue 29.2: callers that are agents (tokens of `kind: 'agent'`), suspensions over A2A, and
 * tasks read back from the runs alone.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { Tollgate } from '../src/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import {
  askUserTool,
  callNamed,
  eventually,
  gatedRecordingTool,
  hostAgents,
  recordingTool,
  testAgent,
  uniqueQueue,
} from './support/harness.js';
import { a2aClient, BOT, PERSON, send, waiting } from './support/a2a-clients.js';

const TOKENS = [
  { token: PERSON, id: 'alice', roles: ['ops'] },
  { token: BOT, id: 'planner-bot', roles: ['bots'], kind: 'agent' as const },
];

function serve(tollgate: Tollgate): Promise<ListeningServer> {
  return createTollgateServer({
    tollgate,
    auth: { tokens: TOKENS },
    a2a: { agents: ['a2a-named'] },
    logError: () => undefined,
  }).listen({ port: 0 });
}

describe('A2A: agents as callers, suspensions, tasks read from runs', () => {
  const restarted: Array<{ tool: string; id: string }> = [];
  const restart = gatedRecordingTool('restart-service', restarted, {
    approvers: ['planner-bot', 'alice'],
  });
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent('a2a-named', [restart, deleteRecord.tool, askUserTool()], callNamed);
  const queue = uniqueQueue('a2a-agents');
  let tollgate: Tollgate;
  let server: ListeningServer;
  let person: Client;
  let bot: Client;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'a2a-agents', queue);
    server = await serve(tollgate);
    person = await a2aClient(`${server.url}/a2a/a2a-named`, PERSON);
    bot = await a2aClient(`${server.url}/a2a/a2a-named`, BOT);
  });
  afterAll(async () => {
    await server?.close();
    await tollgate?.shutdown();
  });

  it("an agent named in the call's approvers approves it over A2A; the tool runs once", async () => {
    const task = (await send(person, 'restart-service svc1')) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = (await send(bot, 'approve', { taskId: task.id })) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(restarted).toEqual([{ tool: 'restart-service', id: 'svc1' }]);
    const audit = await tollgate.getAgent('a2a-named').getAuditTrail(task.id);
    expect(JSON.stringify(audit)).toContain('"planner-bot"');
  });

  it('an agent token may not approve over the HTTP API, nor by a grant, a batch or a plain approval', async () => {
    const task = (await send(person, 'delete-record rec-h1')) as Task;
    const [call] = waiting(task);
    const post = (path: string, body: object) =>
      fetch(`${server.url}/api${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BOT}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const agentPath = '/agents/a2a-named';
    const attempts = [
      await post(`${agentPath}/approve-tool-call-generate`, { runId: task.id }),
      await post(`${agentPath}/send-tool-approval`, {
        threadId: 't',
        resourceId: 'r',
        approved: true,
      }),
      await post(`${agentPath}/hand-off-tool-call`, { runId: task.id, to: ['planner-bot'] }),
      await post('/decisions', {
        decisions: [{ agentId: 'a2a-named', runId: task.id, kind: 'approve' }],
      }),
      await post('/grants', {
        agentId: 'a2a-named',
        toolName: 'delete-record',
        resourceId: 'r',
        for: '1h',
      }),
    ];
    for (const answer of attempts) {
      expect(answer.status).toBe(403);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(
        'AGENT_MAY_NOT_APPROVE',
      );
    }
    const still = await person.getTask({ tenant: '', id: task.id, historyLength: 0 });
    expect(waiting(still).map((c) => c.toolCallId)).toEqual([call!.toolCallId]);
    // Declining is the safe direction: an agent's token may.
    const declined = await post(`${agentPath}/decline-tool-call-generate`, { runId: task.id });
    expect(declined.status).toBe(200);
    expect(deleteRecord.executions).toHaveLength(0);
  });

  it('a suspended call makes the task input-required; a data part is its resume data', async () => {
    const task = (await send(person, 'ask-user q1')) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(waiting(task)).toEqual([
      expect.objectContaining({ toolName: 'ask-user', kind: 'input' }),
    ]);
    const done = (await send(person, '', { taskId: task.id, data: { answer: 'because' } })) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.stringify(done.artifacts)).toContain('because');
  });

  it('with returnImmediately a new task answers working; read again it waits, like any other', async () => {
    const task = (await send(person, 'restart-service svc3', { immediately: true })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const read = await eventually(async () => {
      const now = await person.getTask({ tenant: '', id: task.id, historyLength: 0 });
      if (now.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED)
        throw new Error('still working');
      return now;
    });
    expect(waiting(read)).toEqual([expect.objectContaining({ toolName: 'restart-service' })]);
    expect(restarted.filter((r) => r.id === 'svc3')).toHaveLength(0);
  });

  it('a task is read from its run alone: another server over another runtime answers the same', async () => {
    const task = (await send(person, 'restart-service svc2')) as Task;
    const other = new Tollgate({ temporal: { taskQueue: queue } });
    const otherServer = await serve(other);
    try {
      const elsewhere = await a2aClient(`${otherServer.url}/a2a/a2a-named`, PERSON);
      const read = await elsewhere.getTask({ tenant: '', id: task.id, historyLength: 0 });
      expect(read.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(waiting(read)).toEqual(waiting(task));
      expect(read.contextId).toBe(task.contextId);
      const done = (await send(elsewhere, 'approve', { taskId: task.id })) as Task;
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(restarted.filter((r) => r.id === 'svc2')).toHaveLength(1);
    } finally {
      await otherServer.close();
      await other.shutdown();
    }
  });
});
