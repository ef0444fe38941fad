import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tollgate } from '../src/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import {
  eventually,
  hostAgents,
  recordingTool,
  testAgent,
  uniqueId,
  askUserTool,
} from './support/harness.js';

/** "delete <id>" calls the gated tool; "ask" calls the suspending tool; anything else answers. */
const byPrompt: TurnPicker = (prompt) => {
  const last = prompt.at(-1);
  if (last?.role === 'tool') return { text: 'done' };
  const text = JSON.stringify(last?.content);
  const id = /delete ([\w-]+)/.exec(text)?.[1];
  if (id) return { toolCalls: [{ toolName: 'delete-record', args: { id } }] };
  if (text.includes('ask')) return { toolCalls: [{ toolName: 'ask-user', args: {} }] };
  return { text: 'nothing to do' };
};

describe('rediscovery from Temporal alone (SPEC §9) and Temporal UI visibility', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const askUser = askUserTool();
  const { agent } = testAgent('inbox-agent', [deleteRecord.tool, askUser], byPrompt);
  const { agent: other } = testAgent('other-agent', [deleteRecord.tool], byPrompt);
  const thread = uniqueId('thread');
  const memory = { thread, resource: 'user-1' };
  let tollgate: Tollgate;
  let parked: string;
  let asked: string;
  let finished: string;

  beforeAll(async () => {
    tollgate = await hostAgents([agent, other], 'discovery');
    const a = tollgate.getAgent('inbox-agent');
    parked = (await a.generate('delete rec-1', { memory })).runId;
    asked = (await a.generate('ask me', { memory })).runId;
    finished = (await a.generate('hello', { memory })).runId;
    await tollgate.getAgent('other-agent').generate('delete rec-2', { memory });
    await a.generate('delete rec-3', {
      memory: { thread: uniqueId('elsewhere'), resource: 'user-1' },
    });
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  const a = () => tollgate.getAgent('inbox-agent');

  it('lists the waiting runs of one agent and thread, with their calls', async () => {
    const listed = await eventually(async () => {
      const result = await a().listSuspendedRuns({ threadId: thread, resourceId: 'user-1' });
      expect(result.total).toBe(2);
      return result;
    });
    expect(listed.runs.map((r) => r.runId).sort()).toEqual([parked, asked].sort());
    const approval = listed.runs.find((r) => r.runId === parked)!;
    expect(approval).toMatchObject({
      status: 'suspended',
      agentId: 'inbox-agent',
      threadId: thread,
      resourceId: 'user-1',
    });
    expect(approval.toolCalls).toEqual([
      expect.objectContaining({
        toolName: 'delete-record',
        args: { id: 'rec-1' },
        requiresApproval: true,
        fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
    expect(Date.parse(approval.suspendedAt)).not.toBeNaN();
    const question = listed.runs.find((r) => r.runId === asked)!;
    expect(question.toolCalls).toEqual([
      expect.objectContaining({
        toolName: 'ask-user',
        requiresApproval: false,
        suspendPayload: { question: 'Why?' },
      }),
    ]);
  });

  it('pages through the runs and rejects invalid paging with a typed error', async () => {
    const page0 = await a().listSuspendedRuns({ threadId: thread, perPage: 1, page: 0 });
    const page1 = await a().listSuspendedRuns({ threadId: thread, perPage: 1, page: 1 });
    const page2 = await a().listSuspendedRuns({ threadId: thread, perPage: 1, page: 2 });
    expect(page0.runs).toHaveLength(1);
    expect(page1.runs).toHaveLength(1);
    expect(page0.runs[0]!.runId).not.toBe(page1.runs[0]!.runId);
    expect(page2.runs).toHaveLength(0);
    expect(page0.total).toBe(2);
    await expect(a().listSuspendedRuns({ perPage: 0 })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('perPage'),
    });
    await expect(a().listSuspendedRuns({ page: -1 })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('page'),
    });
    const future = await a().listSuspendedRuns({
      threadId: thread,
      fromDate: new Date(Date.now() + 3_600_000),
    });
    expect(future.total).toBe(0);
  });

  it('finds a parked run, and not a finished one, with a TollgateStatus visibility query', async () => {
    const client = await tollgate.client();
    const ids = await eventually(async () => {
      const found: string[] = [];
      for await (const run of client.workflow.list({
        query: `TollgateStatus = "awaiting-approval" AND TollgateThreadId = "${thread}"`,
      }))
        found.push(run.workflowId);
      expect(found).toContain(parked);
      return found;
    });
    expect(ids).not.toContain(finished);
    expect(ids).not.toContain(asked);
    const done = await client.workflow.getHandle(finished).describe();
    expect(
      done.typedSearchAttributes.get({ name: 'TollgateStatus', type: 'KEYWORD' } as never),
    ).toBe('completed');
  });

  it("shows the waiting calls in the run's current details and names each activity", async () => {
    const client = await tollgate.client();
    const handle = client.workflow.getHandle(parked);
    const metadata = await handle.query<{ currentDetails?: string }>(
      '__temporal_workflow_metadata',
    );
    expect(metadata.currentDetails).toContain('**Awaiting approval**');
    expect(metadata.currentDetails).toContain(
      '| delete-record | approve / decline | `{"id":"rec-1"}`',
    );
    const description = await handle.describe();
    expect(await description.staticSummary()).toBe('inbox-agent: delete rec-1');
    const history = await client.workflow.getHandle(finished).fetchHistory();
    const summaries = (history.events ?? [])
      .map((e) => e.userMetadata?.summary?.data)
      .filter((data): data is Uint8Array => data instanceof Uint8Array)
      .map((data) => JSON.parse(Buffer.from(data).toString()) as string);
    expect(summaries).toEqual(
      expect.arrayContaining(['describe agent inbox-agent', 'model step 1']),
    );
  });

  it('decides by thread with sendToolApproval, and refuses ambiguity, unknown ids and empty threads', async () => {
    const ambiguous = await a()
      .sendToolApproval({ threadId: thread, resourceId: 'user-1', approved: true })
      .catch((error: unknown) => error as { code?: string; message: string });
    expect(ambiguous).toMatchObject({ code: 'AMBIGUOUS_TOOL_CALL' });
    // The caller named a thread, not calls: the refusal lists none of them.
    expect((ambiguous as Error).message).not.toContain('delete-record');
    await expect(
      a().sendToolApproval({
        threadId: thread,
        resourceId: 'user-1',
        approved: true,
        toolCallId: 'nope',
      }),
    ).rejects.toMatchObject({
      code: 'TOOL_CALL_NOT_PENDING',
    });
    const [pending] = await a().pendingToolCalls(parked);
    const executed = deleteRecord.executions.length;
    const accepted = await a().sendToolApproval({
      threadId: thread,
      resourceId: 'user-1',
      approved: true,
      toolCallId: pending!.toolCallId,
    });
    expect(accepted).toEqual({ accepted: true, runId: parked, toolCallId: pending!.toolCallId });
    const client = await tollgate.client();
    expect(await client.workflow.getHandle(parked).result()).toMatchObject({
      finishReason: 'stop',
    });
    expect(deleteRecord.executions.length).toBe(executed + 1);
    const events = (await client.workflow.getHandle(parked).fetchHistory()).events ?? [];
    const summaries = events.flatMap((e) =>
      e.userMetadata?.summary?.data ? [Buffer.from(e.userMetadata.summary.data).toString()] : [],
    );
    expect(summaries).toContain('"tool delete-record"');

    // Only the suspended call is left: it is found without an id and resumed with data.
    await eventually(async () =>
      expect((await a().listSuspendedRuns({ threadId: thread })).total).toBe(1),
    );
    const resumed = await a().sendToolApproval({
      threadId: thread,
      resourceId: 'user-1',
      approved: true,
      resumeData: { answer: 'because' },
    });
    expect(resumed.runId).toBe(asked);
    expect(await client.workflow.getHandle(asked).result()).toMatchObject({ finishReason: 'stop' });
    await eventually(async () =>
      expect(
        a().sendToolApproval({ threadId: thread, resourceId: 'user-1', approved: false }),
      ).rejects.toMatchObject({ code: 'NO_PENDING_TOOL_CALL' }),
    );
  });
});
