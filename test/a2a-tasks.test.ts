/**
 * A2A tasks beyond send and get: CancelTask, ListTasks, SendStreamingMessage and resubscribing,
 * all through the A2A SDK's own client over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { Tollgate } from '../src/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import {
  deleteByPrompt,
  eventually,
  hostAgents,
  recordingTool,
  testAgent,
} from './support/harness.js';
import {
  a2aClient,
  PERSON,
  send,
  sendStreaming,
  statesOf,
  waiting,
} from './support/a2a-clients.js';

const OUTSIDER = 'a2a-outsider-token-0123456789';
const { INPUT_REQUIRED, WORKING, COMPLETED, CANCELED } = {
  INPUT_REQUIRED: TaskState.TASK_STATE_INPUT_REQUIRED,
  WORKING: TaskState.TASK_STATE_WORKING,
  COMPLETED: TaskState.TASK_STATE_COMPLETED,
  CANCELED: TaskState.TASK_STATE_CANCELED,
};

describe('A2A tasks: cancel, list, stream, resubscribe', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent('a2a-tasks', [deleteRecord.tool], deleteByPrompt);
  const ran = (id: string) =>
    deleteRecord.executions.filter((e) => (e.input as { id: string }).id === id);
  let tollgate: Tollgate;
  let server: ListeningServer;
  let person: Client;
  let outsider: Client;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'a2a-tasks');
    server = await createTollgateServer({
      tollgate,
      auth: {
        tokens: [
          { token: PERSON, id: 'alice', roles: ['ops'] },
          // Sees only runs of tenant-x: no A2A task is one of them.
          { token: OUTSIDER, id: 'mallory', scopes: { resources: ['tenant-x'] } },
        ],
      },
      a2a: { agents: ['a2a-tasks'] },
      logError: () => undefined,
    }).listen({ port: 0 });
    const url = `${server.url}/a2a/a2a-tasks`;
    person = await a2aClient(url, PERSON);
    outsider = await a2aClient(url, OUTSIDER);
  });
  afterAll(async () => {
    await server?.close();
    await tollgate?.shutdown();
  });

  const refusal = (call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (error: unknown) => error as Error,
    );
  const cancel = (client: Client, id: string) =>
    client.cancelTask({ tenant: '', id, metadata: undefined });

  it('CancelTask ends a waiting task canceled in the caller\u2019s name; its gated tool never runs', async () => {
    const task = (await send(person, 'delete rec-k1')) as Task;
    expect(task.status?.state).toBe(INPUT_REQUIRED);
    const handle = (await tollgate.client()).workflow.getHandle(task.id);
    const events = (await handle.fetchHistory()).events!.length;
    // A caller who may not see the task is told it does not exist, and nothing changes.
    const hidden = await refusal(cancel(outsider, task.id));
    expect(hidden?.name).toContain('TaskNotFound');
    expect((await handle.fetchHistory()).events!.length).toBe(events);

    const cancelled = await cancel(person, task.id);
    expect(cancelled.status?.state).toBe(CANCELED);
    const read = await person.getTask({ tenant: '', id: task.id, historyLength: 0 });
    expect(read.status?.state).toBe(CANCELED);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    const history = (await handle.fetchHistory()).events!;
    const requested = history.find((e) => e.workflowExecutionCancelRequestedEventAttributes);
    expect(requested?.workflowExecutionCancelRequestedEventAttributes?.identity).toBe(
      'tollgate:alice',
    );
    expect(ran('rec-k1')).toHaveLength(0);

    const again = await refusal(cancel(person, task.id));
    expect(again?.name).toContain('TaskNotCancelable');
  });

  it('CancelTask of a completed task is TaskNotCancelable and changes nothing', async () => {
    const task = (await send(person, 'delete rec-k2')) as Task;
    const done = (await send(person, 'approve', { taskId: task.id })) as Task;
    expect(done.status?.state).toBe(COMPLETED);
    const refused = await refusal(cancel(person, task.id));
    expect(refused?.name).toContain('TaskNotCancelable');
    const read = await person.getTask({ tenant: '', id: task.id, historyLength: 0 });
    expect(read.status?.state).toBe(COMPLETED);
    expect(ran('rec-k2')).toHaveLength(1);
  });

  it('ListTasks lists a context\u2019s tasks newest first, a page at a time, only to those who may see them', async () => {
    const contextId = 'ctx-list-1';
    const opened: string[] = [];
    for (const id of ['rec-l1', 'rec-l2', 'rec-l3']) {
      opened.push(((await send(person, `delete ${id}`, { contextId })) as Task).id);
    }
    const elsewhere = (await send(person, 'delete rec-l9', { contextId: 'ctx-list-2' })) as Task;
    const list = (pageToken: string, client = person) =>
      client.listTasks({
        tenant: '',
        contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 2,
        pageToken,
        statusTimestampAfter: undefined,
      });
    // Visibility lists a run about a second after it started.
    const first = await eventually(async () => {
      const page = await list('');
      if (page.totalSize < 3) throw new Error(`listed ${page.totalSize} of 3`);
      return page;
    });
    expect(first.tasks.map((t) => t.id)).toEqual([opened[2], opened[1]]);
    expect(first.tasks.every((t) => t.status?.state === INPUT_REQUIRED)).toBe(true);
    expect(first.tasks.every((t) => t.contextId === contextId)).toBe(true);
    const second = await list(first.nextPageToken);
    expect(second.tasks.map((t) => t.id)).toEqual([opened[0]]);
    expect(second.nextPageToken).toBe('');
    const hidden = await list('', outsider);
    expect(hidden.tasks).toEqual([]);
    expect(hidden.totalSize).toBe(0);
    // Without a context: the agent's tasks in every context.
    const all = await eventually(async () => {
      const page = await person.listTasks({
        tenant: '',
        contextId: '',
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 100,
        pageToken: '',
        statusTimestampAfter: undefined,
      });
      const ids = page.tasks.map((t) => t.id);
      if (!ids.includes(elsewhere.id)) throw new Error('not listed yet');
      return ids;
    });
    expect(all).toEqual(expect.arrayContaining([...opened, elsewhere.id]));
    const bad = await refusal(list('not-a-token'));
    expect(bad?.message).toContain('pageToken');
  });

  it('SendStreamingMessage streams the task, input-required, and after an approval its completion; the tool runs once', async () => {
    const opened = await sendStreaming(person, 'delete rec-s1', { messageId: 'stream-s1' });
    expect(statesOf(opened)).toEqual([WORKING, INPUT_REQUIRED]);
    const parked = taskOf(opened);
    const last = opened.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.taskId).toBe(parked.id);
    expect(ran('rec-s1')).toHaveLength(0);

    const answered = await sendStreaming(person, 'approve', { taskId: parked.id });
    expect(statesOf(answered).at(0)).toBe(WORKING);
    expect(statesOf(answered).at(-1)).toBe(COMPLETED);
    const artifact = answered.find((e) => e.payload?.$case === 'artifactUpdate')?.payload;
    expect(
      artifact?.$case === 'artifactUpdate' && artifact.value.artifact?.parts[0]?.content,
    ).toEqual({
      $case: 'text',
      value: expect.stringContaining('rec-s1'),
    });
    expect(ran('rec-s1')).toHaveLength(1);
    // The opening message streamed again (a retry) finds the task it opened: no second run.
    const retried = await sendStreaming(person, 'delete rec-s1', { messageId: 'stream-s1' });
    expect(taskOf(retried).id).toBe(parked.id);
    expect(statesOf(retried)).toEqual([COMPLETED]);
    expect(ran('rec-s1')).toHaveLength(1);
  });

  it('resubscribing to a waiting task gets its current state, then what follows an answer sent elsewhere', async () => {
    const task = (await send(person, 'delete rec-r1')) as Task;
    expect(task.status?.state).toBe(INPUT_REQUIRED);
    // A caller who may not see the task cannot subscribe to it either.
    const hidden = await refusal(outsider.resubscribeTask({ tenant: '', id: task.id }).next());
    expect(hidden?.name).toContain('TaskNotFound');
    const events = person.resubscribeTask({ tenant: '', id: task.id });
    const current = await events.next();
    const now = (current.value as StreamResponse).payload;
    expect(now?.$case === 'task' && waiting(now.value)).toEqual(waiting(task));
    expect(ran('rec-r1')).toHaveLength(0);
    const done = (await send(person, 'approve', { taskId: task.id })) as Task;
    expect(done.status?.state).toBe(COMPLETED);
    const rest: StreamResponse[] = [];
    for await (const event of events) rest.push(event);
    expect(statesOf(rest).at(-1)).toBe(COMPLETED);
    expect(ran('rec-r1')).toHaveLength(1);
    // A task that ended: its state, and the stream ends.
    const ended: StreamResponse[] = [];
    for await (const event of person.resubscribeTask({ tenant: '', id: task.id })) {
      ended.push(event);
    }
    expect(statesOf(ended)).toEqual([COMPLETED]);
  });
});

function taskOf(events: StreamResponse[]): Task {
  const first = events[0]?.payload;
  if (first?.$case !== 'task') throw new Error(`the stream began with ${first?.$case}`);
  return first.value;
}
