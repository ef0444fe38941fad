import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { collectOutput } from '../src/stream/agent-output.js';
import type { Tollgate } from '../src/index.js';
import type { RunInput } from '../src/common/run-types.js';
import { TollgateClient } from '../src/http-client/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import { cli } from './support/cli.js';
import {
  chunksOf,
  eventually,
  hostAgents,
  lastToolOutputs,
  outputsText,
  recordingTool,
  testAgent,
  uniqueId,
  type Execution,
} from './support/harness.js';

const AGENT = 'fork-agent';
const TOKENS = {
  operator: 'fork-operator-token-0123456789',
  reader: 'fork-reader-token-0123456789',
  other: 'fork-other-agent-token-0123456789',
};

/** The text of the last user message, wherever it is in the prompt. */
function lastUserText(prompt: Parameters<TurnPicker>[0]): string {
  const user = prompt.filter((message) => message.role === 'user').at(-1);
  return JSON.stringify(user?.content ?? '');
}

/**
 * "delete rec-N": step 1 looks the record up, step 2 asks to delete it (gated), step 3 reports.
 * A last user message that says "stop" after a step is answered "Stopped." without a tool.
 */
const picker: TurnPicker = (prompt) => {
  const last = prompt.at(-1);
  if (last?.role === 'user' && /stop/.test(JSON.stringify(last.content)))
    return { text: 'Stopped.' };
  const id = /rec-\d+/.exec(lastUserText(prompt))?.[0] ?? 'rec-0';
  const results = prompt.filter((message) => message.role === 'tool').length;
  if (results === 0) return { toolCalls: [{ toolName: 'lookup', args: { id } }] };
  if (results === 1) return { toolCalls: [{ toolName: 'delete-record', args: { id } }] };
  return { text: `Done: ${outputsText(lastToolOutputs(prompt) ?? [])}` };
};

describe('forking a run from one of its steps (docs/fork.md)', () => {
  const lookup = recordingTool('lookup');
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent, model } = testAgent(AGENT, [lookup.tool, deleteRecord.tool], picker);
  let tollgate: Tollgate;
  let client: Client;
  let server: ListeningServer;
  let remote: TollgateClient;
  const a = () => tollgate.getAgent(AGENT);

  const ranIn = (executions: Execution[], runId: string) =>
    executions.filter((e) => e.idempotencyKey.startsWith(`${runId}:`)).length;
  const eventsOf = async (runId: string) =>
    (await client.workflow.getHandle(runId).fetchHistory()).events!.length;
  async function inputOf(runId: string): Promise<RunInput> {
    const history = await client.workflow.getHandle(runId).fetchHistory();
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
    return JSON.parse(new TextDecoder().decode(started.input!.payloads![0]!.data!)) as RunInput;
  }

  /** An original run that looked rec-1 up and waits on its deletion (step 2). */
  async function waitingOriginal() {
    const output = await a().generate('delete rec-1');
    expect(output.finishReason).toBe('suspended');
    return { runId: output.runId, toolCallId: output.suspendPayload!.toolCallId };
  }

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'fork');
    client = await tollgate.client();
    server = await createTollgateServer({
      tollgate,
      auth: {
        tokens: [
          { token: TOKENS.operator, id: 'ops' },
          { token: TOKENS.reader, id: 'auditor', scopes: { actions: ['read'] } },
          { token: TOKENS.other, id: 'other-team', scopes: { agents: ['someone-else'] } },
        ],
      },
      logError: () => undefined,
    }).listen({ port: 0 });
    remote = new TollgateClient({ baseUrl: server.url, token: TOKENS.operator });
  });
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
  });

  it('declines in the fork a call the original approved: the tool runs once in the original, zero times in the fork, and the original is untouched', async () => {
    const original = await waitingOriginal();
    const approved = await a().approveToolCallGenerate({ runId: original.runId });
    expect(approved.text).toBe('Done: {"done":"delete-record","id":"rec-1"}');
    const eventsBefore = await eventsOf(original.runId);
    const modelCallsBefore = model.prompts.length;

    const stream = await a().fork({
      runId: original.runId,
      step: 2,
      calls: { [original.toolCallId]: { choice: 'decline', reason: 'Not in the fork.' } },
    });
    const chunks = await chunksOf(stream);
    expect(await stream.text).toBe('Done: "Not in the fork."');
    // The fork's only model step is step 3: steps 1 and 2 came from the original.
    expect(model.prompts.length - modelCallsBefore).toBe(1);
    expect(chunks.filter((c) => c.type === 'step-start').map((c) => c.payload)).toEqual([
      { step: 3 },
    ]);
    expect(chunks[0]!.payload).toMatchObject({ forkedFrom: { runId: original.runId, step: 2 } });
    expect(ranIn(lookup.executions, original.runId)).toBe(1);
    expect(ranIn(deleteRecord.executions, original.runId)).toBe(1);
    expect(ranIn(lookup.executions, stream.runId)).toBe(0);
    expect(ranIn(deleteRecord.executions, stream.runId)).toBe(0);

    expect(await eventsOf(original.runId)).toBe(eventsBefore);
    expect((await inputOf(stream.runId)).fork).toMatchObject({ runId: original.runId, step: 2 });
    const audit = await a().getAuditTrail(stream.runId);
    expect(audit[0]).toMatchObject({
      type: 'forked',
      from: { runId: original.runId, step: 2 },
      calls: [{ toolCallId: original.toolCallId, choice: 'decline', reason: 'Not in the fork.' }],
    });
    // Forward link in Temporal: memo and search attribute; back-link by search.
    const described = await client.workflow.getHandle(stream.runId).describe();
    expect(described.memo).toMatchObject({ forkedFrom: { runId: original.runId, step: 2 } });
    const forks = await eventually(async () => {
      const listed = await a().listForks(original.runId);
      expect(listed.map((f) => f.runId)).toEqual([stream.runId]);
      return listed;
    });
    expect(forks[0]).toMatchObject({ step: 2, status: 'completed' });
    expect(await eventsOf(original.runId)).toBe(eventsBefore);
  }, 60_000);

  it('re-runs a fork at step 1 from step 2 only: no lookup again, a new deletion waits in the fork, declined there it runs zero times', async () => {
    const original = await waitingOriginal();
    const eventsBefore = await eventsOf(original.runId);
    const fork = await collectOutput(await a().fork({ runId: original.runId, step: 1 }));
    expect(fork.finishReason).toBe('suspended');
    expect(fork.suspendPayload).toMatchObject({ toolName: 'delete-record', args: { id: 'rec-1' } });
    expect(ranIn(lookup.executions, fork.runId)).toBe(0);
    const listed = await a().listSuspendedRuns({ perPage: 1000 });
    expect(listed.runs.map((run) => run.runId)).toEqual(
      expect.arrayContaining([original.runId, fork.runId]),
    );
    const declined = await a().declineToolCallGenerate({ runId: fork.runId });
    expect(declined.text).toBe('Done: "Tool call was not approved by the user"');
    expect(ranIn(deleteRecord.executions, fork.runId)).toBe(0);
    // The original still waits, unchanged, and goes on by itself.
    expect(await eventsOf(original.runId)).toBe(eventsBefore);
    await a().approveToolCallGenerate({ runId: original.runId });
    expect(ranIn(deleteRecord.executions, original.runId)).toBe(1);
  }, 60_000);

  it('re-asks in a fork the call a waiting original waits on (the default), and takes a changed prompt down a different path', async () => {
    const original = await waitingOriginal();
    const asked = await collectOutput(await a().fork({ runId: original.runId, step: 2 }));
    expect(asked.finishReason).toBe('suspended');
    expect(asked.suspendPayload).toMatchObject({ toolCallId: original.toolCallId });
    const audit = await a().getAuditTrail(asked.runId);
    expect(audit.find((e) => e.type === 'gate')).toMatchObject({ gated: true, source: 'fork' });
    const approved = await a().approveToolCallGenerate({ runId: asked.runId });
    expect(approved.text).toBe('Done: {"done":"delete-record","id":"rec-1"}');
    expect(ranIn(deleteRecord.executions, asked.runId)).toBe(1);
    expect(ranIn(deleteRecord.executions, original.runId)).toBe(0);

    const appended = await collectOutput(
      await a().fork({ runId: original.runId, step: 1, prompt: 'stop here' }),
    );
    expect(appended.text).toBe('Stopped.');
    expect(ranIn(deleteRecord.executions, appended.runId)).toBe(0);
    const replaced = await collectOutput(
      await a().fork({ runId: original.runId, step: 0, prompt: 'delete rec-2' }),
    );
    expect(replaced.suspendPayload).toMatchObject({ args: { id: 'rec-2' } });
    expect(lookup.executions.filter((e) => e.idempotencyKey.startsWith(replaced.runId))).toEqual([
      expect.objectContaining({ input: { id: 'rec-2' } }),
    ]);
    expect((await a().getAuditTrail(replaced.runId))[0]).toMatchObject({ prompt: 'replaced' });
    await a().declineToolCallGenerate({ runId: original.runId });
  }, 60_000);

  it('refuses a step beyond the run, an unknown run and an unknown call with typed errors, starting nothing', async () => {
    const original = await waitingOriginal();
    const eventsBefore = await eventsOf(original.runId);
    await expect(a().fork({ runId: original.runId, step: 7 })).rejects.toMatchObject({
      code: 'INVALID_FORK_STEP',
      message: expect.stringContaining('steps 0 to 2'),
    });
    await expect(a().fork({ runId: uniqueId('no-such-run'), step: 0 })).rejects.toMatchObject({
      code: 'RUN_NOT_FOUND',
    });
    await expect(
      a().fork({ runId: original.runId, step: 2, calls: { call_nope: 'ask' } }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('call_nope'),
    });
    await expect(
      a().fork({ runId: original.runId, step: 2, calls: { [original.toolCallId]: 'keep' } }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('no result yet'),
    });
    await expect(
      a().fork({ runId: original.runId, step: 1, prompt: 'x', promptMode: 'replace' }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    const forkRunId = uniqueId('never-started');
    await expect(a().fork({ runId: original.runId, step: 9, forkRunId })).rejects.toThrow();
    await expect(client.workflow.getHandle(forkRunId).describe()).rejects.toThrow();
    // A fork whose input would pass 1.9 MB is refused before anything starts: Temporal's 2 MB
    // payload limit would otherwise fail its start, or its first continue-as-new.
    const tooLarge = uniqueId('too-large');
    await expect(
      a().fork({
        runId: original.runId,
        step: 1,
        prompt: 'x'.repeat(1_950_000),
        forkRunId: tooLarge,
      }),
    ).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: expect.stringMatching(/would start with \d+ bytes of conversation, over 1900000/),
    });
    await expect(client.workflow.getHandle(tooLarge).describe()).rejects.toThrow();
    expect(await eventsOf(original.runId)).toBe(eventsBefore);
    await a().declineToolCallGenerate({ runId: original.runId });
  }, 60_000);

  it('forks over HTTP and the CLI, held to the token: a read-only token or one for another agent is 403, and the audit shows the links both ways', async () => {
    const original = await waitingOriginal();
    const eventsBefore = await eventsOf(original.runId);
    const reader = new TollgateClient({ baseUrl: server.url, token: TOKENS.reader });
    await expect(
      reader.getAgent(AGENT).fork({ runId: original.runId, step: 1 }),
    ).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const other = new TollgateClient({ baseUrl: server.url, token: TOKENS.other });
    await expect(
      other.getAgent(AGENT).fork({ runId: original.runId, step: 1 }),
    ).rejects.toMatchObject({
      status: 403,
    });
    await expect(
      remote.getAgent(AGENT).fork({ runId: original.runId, step: 5 }),
    ).rejects.toMatchObject({ status: 422, code: 'INVALID_FORK_STEP' });

    const stream = await remote.getAgent(AGENT).fork({
      runId: original.runId,
      step: 2,
      calls: { [original.toolCallId]: 'decline' },
    });
    expect(await stream.text).toBe('Done: "Tool call was not approved by the user"');
    expect((await a().getAuditTrail(stream.runId))[0]).toMatchObject({
      forkedBy: { id: 'ops' },
    });
    expect((await inputOf(stream.runId)).requester).toBe('ops');

    const flags = ['--task-queue', tollgate.taskQueue, '--as', 'carol'];
    const forked = await cli([
      'fork',
      original.runId,
      '--step',
      '1',
      '--prompt',
      'stop now',
      ...flags,
    ]);
    expect(forked.stderr).toBe('');
    expect(forked.code).toBe(0);
    expect(forked.stdout).toMatch(/Fork .* of run .* at step 1/);
    expect(forked.stdout).toMatch(/Stopped\./);
    const cliFork = /Fork (\S+) of run/.exec(forked.stdout)![1]!;
    const seen = await eventually(async () => {
      const listed = await remote.getAgent(AGENT).listForks(original.runId);
      expect(listed.map((f) => f.runId).sort()).toEqual([stream.runId, cliFork].sort());
      return listed;
    });
    expect(seen).toHaveLength(2);
    const table = await cli(['audit', original.runId, '--task-queue', tollgate.taskQueue]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(`Forked at step 1 into run ${cliFork}`);
    expect(table.stdout).toContain(`Forked at step 2 into run ${stream.runId}`);
    const forkTable = await cli(['audit', cliFork, '--task-queue', tollgate.taskQueue]);
    expect(forkTable.stdout).toMatch(
      new RegExp(`forked from run ${original.runId} at step 1; by carol`),
    );
    expect(await eventsOf(original.runId)).toBe(eventsBefore);
    await a().declineToolCallGenerate({ runId: original.runId });
  }, 90_000);
});
