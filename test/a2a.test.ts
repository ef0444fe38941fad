/**
 * Issue 29.2: a Tollgate agent as an A2A server, answered through the A2A SDK's own client, and
 * `a2aTool()` calling an A2A agent whose `input-required` parks the call durably.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { a2aTool, type A2AInputRequired } from '../src/a2a/index.js';
import type { Tollgate } from '../src/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import {
  deleteByPrompt,
  hostAgents,
  lastToolOutputs,
  outputsText,
  recordingTool,
  testAgent,
} from './support/harness.js';
import { a2aClient, BOT, codeOf, PERSON, send, waiting } from './support/a2a-clients.js';

describe('A2A server: approvals as input-required', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent('a2a-ops', [deleteRecord.tool], deleteByPrompt);
  let tollgate: Tollgate;
  let server: ListeningServer;
  let person: Client;
  let bot: Client;
  let url: string;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'a2a');
    server = await createTollgateServer({
      tollgate,
      auth: {
        tokens: [
          { token: PERSON, id: 'alice', roles: ['ops'] },
          { token: BOT, id: 'planner-bot', roles: ['bots'], kind: 'agent' },
        ],
      },
      a2a: { agents: ['a2a-ops'] },
      logError: () => undefined,
    }).listen({ port: 0 });
    url = `${server.url}/a2a/a2a-ops`;
    person = await a2aClient(url, PERSON);
    bot = await a2aClient(url, BOT);
  });
  afterAll(async () => {
    await server?.close();
    await tollgate?.shutdown();
  });

  it('serves the agent card at the well-known paths, and refuses JSON-RPC without a token', async () => {
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
      name: string;
      supportedInterfaces: Array<{ url: string; protocolBinding: string }>;
    };
    expect(card.name).toBe('a2a-ops');
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({ url: `${server.url}/api/a2a/a2a-ops`, protocolBinding: 'JSONRPC' }),
    ]);
    const root = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as {
      name: string;
    };
    expect(root.name).toBe('a2a-ops');
    const anonymous = await fetch(`${server.url}/api/a2a/a2a-ops`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
  });

  it('a gated call makes the task input-required; an approval over A2A runs the tool once and completes it', async () => {
    const before = deleteRecord.executions.length;
    const task = (await send(person, 'delete rec-a1')) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(waiting(task)).toEqual([
      expect.objectContaining({ toolName: 'delete-record', kind: 'approval' }),
    ]);
    // The task is the run: read back by id, it waits on the same call.
    const read = await person.getTask({ tenant: '', id: task.id, historyLength: 0 });
    expect(waiting(read)).toEqual(waiting(task));
    expect(deleteRecord.executions.length).toBe(before);

    const done = (await send(person, 'approve', { taskId: task.id })) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts[0]?.parts[0]?.content).toEqual({
      $case: 'text',
      value: expect.stringContaining('rec-a1'),
    });
    expect(
      deleteRecord.executions.filter((e) => (e.input as { id: string }).id === 'rec-a1'),
    ).toHaveLength(1);
    const audit = await tollgate.getAgent('a2a-ops').getAuditTrail(task.id);
    expect(JSON.stringify(audit)).toContain('"alice"');
    const again = await person.getTask({ tenant: '', id: task.id, historyLength: 0 });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('the same opening message sent again (a retry) finds the task it opened: one run, one question', async () => {
    // A second start under the same run id would be refused by Temporal: an answer proves none.
    const first = (await send(person, 'delete rec-e1', { messageId: 'retried-1' })) as Task;
    const again = (await send(person, 'delete rec-e1', { messageId: 'retried-1' })) as Task;
    expect(again.id).toBe(first.id);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const other = (await send(bot, 'delete rec-e1', { messageId: 'retried-1' })) as Task;
    expect(other.id).not.toBe(first.id);
  });

  it('a decline over A2A never runs the tool', async () => {
    const task = (await send(person, 'delete rec-d1')) as Task;
    const done = (await send(person, '', {
      taskId: task.id,
      data: { decision: 'decline', reason: 'not today' },
    })) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(
      deleteRecord.executions.filter((e) => (e.input as { id: string }).id === 'rec-d1'),
    ).toHaveLength(0);
  });

  it("an agent's approval is refused with a typed error, the call still waits, and nothing reaches the run", async () => {
    const task = (await send(person, 'delete rec-b1')) as Task;
    const handle = (await tollgate.client()).workflow.getHandle(task.id);
    const events = (await handle.fetchHistory()).events!.length;
    const refused = await send(bot, 'approve', { taskId: task.id }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refused?.message).toContain('may not approve');
    expect(codeOf(refused)).toBe('AGENT_MAY_NOT_APPROVE');
    expect((await handle.fetchHistory()).events!.length).toBe(events);
    const still = await person.getTask({ tenant: '', id: task.id, historyLength: 0 });
    expect(still.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(
      deleteRecord.executions.filter((e) => (e.input as { id: string }).id === 'rec-b1'),
    ).toHaveLength(0);
    // The agent may still decline: the safe direction needs no one's leave.
    const declined = (await send(bot, 'decline', { taskId: task.id })) as Task;
    expect(declined.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(
      deleteRecord.executions.filter((e) => (e.input as { id: string }).id === 'rec-b1'),
    ).toHaveLength(0);
  });

  it('a reply the task cannot take is refused as invalid params, naming the fix', async () => {
    const task = (await send(person, 'delete rec-c1')) as Task;
    const refused = await send(person, 'maybe later', { taskId: task.id }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(codeOf(refused)).toBe('INVALID_A2A_MESSAGE');
    expect(refused?.message).toContain('reply "approve" or "decline"');
    const unknown = await person.getTask({ tenant: '', id: 'a2a.nope.0', historyLength: 0 }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(unknown?.name).toContain('TaskNotFound');
  });

  describe('a2aTool() against this server', () => {
    let caller: Tollgate;
    afterAll(async () => caller?.shutdown());

    it('parks the call while the remote task is input-required, sends the resume data as the reply, and returns the remote result', async () => {
      const askOps = a2aTool({
        id: 'ask-ops',
        url,
        headers: { authorization: `Bearer ${PERSON}` },
        pollIntervalMs: 200,
      });
      const { agent: asker } = testAgent('a2a-caller', [askOps], (prompt) => {
        const outputs = lastToolOutputs(prompt);
        if (outputs) return { text: `Got: ${outputsText(outputs)}` };
        return { toolCalls: [{ toolName: 'ask-ops', args: { message: 'delete rec-t1' } }] };
      });
      caller = await hostAgents([asker], 'a2a-caller');
      const client = caller.getAgent('a2a-caller');
      const first = await client.generate('ask ops');
      expect(first.finishReason).toBe('suspended');
      const [parked] = await client.pendingToolCalls(first.runId);
      const payload = parked!.suspendPayload as unknown as A2AInputRequired;
      expect(payload).toEqual(
        expect.objectContaining({
          kind: 'a2a-input-required',
          round: 0,
          question: expect.stringContaining('Approval needed: delete-record'),
        }),
      );
      const remote = await person.getTask({ tenant: '', id: payload.taskId, historyLength: 0 });
      expect(remote.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(
        deleteRecord.executions.filter((e) => (e.input as { id: string }).id === 'rec-t1'),
      ).toHaveLength(0);

      const out = await client.resumeGenerate({ text: 'approve' }, { runId: first.runId });
      expect(out.finishReason).toBe('stop');
      expect(out.text).toContain('rec-t1');
      expect(
        deleteRecord.executions.filter((e) => (e.input as { id: string }).id === 'rec-t1'),
      ).toHaveLength(1);
      const settled = await person.getTask({ tenant: '', id: payload.taskId, historyLength: 0 });
      expect(settled.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });
  });
});
