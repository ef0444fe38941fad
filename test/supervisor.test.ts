import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, type Tollgate } from '../src/index.js';
import { scriptedModel, type TurnPicker } from '../src/testing/index.js';
import {
  chunksOf,
  eventually,
  hostAgents,
  recordingTool,
  lastToolOutputs,
} from './support/harness.js';

type Prompt = Parameters<TurnPicker>[0];

/** Text of the last message, whatever its shape. */
function lastText(prompt: Prompt): string {
  return JSON.stringify(prompt.at(-1)?.content ?? '');
}

/** The tool results the model got in its last message, as text. */
function results(prompt: Prompt): string[] {
  return (lastToolOutputs(prompt) ?? []).map((value) =>
    typeof value === 'string' ? value : JSON.stringify(value),
  );
}

/** Delegates each "drop <id>" of its task to `tool`, then reports what came back. */
function delegating(prefix: string, tool: string): TurnPicker {
  return (prompt) => {
    const got = results(prompt);
    if (got.length > 0) return { text: `${prefix}[${got.join(' + ')}]` };
    const ids = [...lastText(prompt).matchAll(/drop ([\w-]+)/g)].map((m) => m[1]!);
    return {
      toolCalls: ids.map((id) => ({
        toolName: tool,
        args: tool.startsWith('agent-') ? { message: `drop ${id}` } : { id },
      })),
    };
  };
}

describe('supervisors: sub-agents as child workflows (SPEC §7)', () => {
  const dropTable = recordingTool('drop-table', { requireApproval: true });
  const db = new Agent({
    id: 'db-agent',
    description: 'Drops tables',
    model: scriptedModel(delegating('DB', 'dropTable')),
    tools: { dropTable: dropTable.tool },
  });
  const ops = new Agent({
    id: 'ops-agent',
    description: 'Runs operations',
    model: scriptedModel(delegating('Ops', 'agent-db')),
    agents: { db },
  });
  const supervisor = new Agent({
    id: 'supervisor',
    model: scriptedModel(delegating('Sup', 'agent-ops')),
    agents: { ops },
  });
  const direct = new Agent({
    id: 'fan-out',
    model: scriptedModel(delegating('Fan', 'agent-db')),
    agents: { db },
  });
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([supervisor, direct], 'supervisor');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  const executedIds = () => dropTable.executions.map((e) => (e.input as { id: string }).id);

  it('surfaces an approval three levels down on the top run, with the inner tool and the path', async () => {
    const top = tollgate.getAgent('supervisor');
    const stream = await top.stream('Please drop t1');
    const chunks = await chunksOf(stream);
    const approval = chunks.find((c) => c.type === 'tool-call-approval');
    expect(approval?.payload).toMatchObject({
      toolName: 'dropTable',
      toolId: 'drop-table',
      args: { id: 't1' },
      path: ['supervisor', 'ops-agent', 'db-agent'],
    });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'suspended' } });
    const suspendPayload = await stream.suspendPayload;
    expect(suspendPayload).toMatchObject({
      toolName: 'dropTable',
      toolId: 'drop-table',
      args: { id: 't1' },
      requiresApproval: true,
    });
    const listed = await eventually(async () => {
      const found = await top.listSuspendedRuns();
      const run = found.runs.find((r) => r.runId === stream.runId);
      expect(run).toBeDefined();
      return run!;
    });
    expect(listed.toolCalls).toEqual([
      expect.objectContaining({
        toolName: 'dropTable',
        toolId: 'drop-table',
        args: { id: 't1' },
        path: ['supervisor', 'ops-agent', 'db-agent'],
      }),
    ]);
    expect(executedIds()).not.toContain('t1');
    // The sub-agents' own runs are decided through the top run: listings show only the top run.
    expect((await tollgate.getAgent('db-agent').listSuspendedRuns()).total).toBe(0);

    const approved = await top.approveToolCall({
      runId: stream.runId,
      toolCallId: suspendPayload!.toolCallId,
      fingerprint: suspendPayload!.fingerprint!,
    });
    expect(await approved.finishReason).toBe('stop');
    expect(await approved.text).toBe('Sup[Ops[DB[{"done":"drop-table","id":"t1"}]]]');
    expect(executedIds().filter((id) => id === 't1')).toHaveLength(1);
  });

  it('lets the inner model see a decline made on the top run', async () => {
    const top = tollgate.getAgent('supervisor');
    const first = await top.generate('Please drop t2');
    expect(first.finishReason).toBe('suspended');
    const done = await top.declineToolCallGenerate({
      runId: first.runId,
      reason: 'Not in production',
    });
    expect(done.text).toBe('Sup[Ops[DB[Not in production]]]');
    expect(executedIds()).not.toContain('t2');
  });

  it('handles parallel delegations to the same sub-agent, decided in reverse order', async () => {
    const fan = tollgate.getAgent('fan-out');
    const first = await fan.generate('drop a1 and drop b1');
    expect(first.finishReason).toBe('suspended');
    const pending = await eventually(async () => {
      const calls = await fan.pendingToolCalls(first.runId);
      expect(calls).toHaveLength(2);
      return calls;
    });
    const byId = Object.fromEntries(
      pending.map((c) => [(c.args as { id: string }).id, c.toolCallId]),
    );
    const afterB = await fan.approveToolCallGenerate({ runId: first.runId, toolCallId: byId.b1! });
    expect(afterB.finishReason).toBe('suspended');
    expect(executedIds()).toContain('b1');
    expect(executedIds()).not.toContain('a1');
    const done = await fan.approveToolCallGenerate({ runId: first.runId, toolCallId: byId.a1! });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toBe(
      'Fan[DB[{"done":"drop-table","id":"a1"}] + DB[{"done":"drop-table","id":"b1"}]]',
    );
    expect(
      executedIds()
        .filter((id) => id === 'a1' || id === 'b1')
        .sort(),
    ).toEqual(['a1', 'b1']);
  });

  it('cancels the children with the top run and answers every pending call', async () => {
    const top = tollgate.getAgent('supervisor');
    const first = await top.generate('Please drop t3');
    expect(first.finishReason).toBe('suspended');
    const client = await tollgate.client();
    const handle = client.workflow.getHandle(first.runId);
    await handle.cancel();
    await expect(handle.result()).rejects.toBeDefined();
    const log = await readAll(first.runId);
    expect(log).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'tool-error',
          payload: expect.objectContaining({
            toolName: 'dropTable',
            toolId: 'drop-table',
            error: 'Run was cancelled before a decision',
          }),
        }),
      ]),
    );
    const child = client.workflow.getHandle(`${first.runId}/${first.toolCalls[0]!.toolCallId}`);
    await eventually(async () => expect((await child.describe()).status.name).toBe('CANCELLED'));
    expect(executedIds()).not.toContain('t3');
  });

  async function readAll(runId: string) {
    const client = await tollgate.client();
    const slice = await client.workflow
      .getHandle(runId)
      .query<{ chunks: Array<{ type: string; payload: unknown }> }, [{ offset: number }]>(
        'tollgate.chunks',
        { offset: 0 },
      );
    return slice.chunks;
  }
});
