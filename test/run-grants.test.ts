import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tollgate } from '../src/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import { cli } from './support/cli.js';
import {
  eventually,
  executionsOf,
  hostAgents,
  recordingTool,
  testAgent,
} from './support/harness.js';
import { Agent } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import type { RunInput } from '../src/common/run-types.js';
import type { DecisionInput } from '../src/common/decision-types.js';
import { decisionUpdates } from '../src/common/messages.js';
import { SIGNALS } from '../src/common/wire.js';

/**
 * "delete <n>" deletes rec-1 … rec-n, one call per step; a second tool, "archive", is asked
 * for in the prompt "archive then delete": archive first, then one delete.
 */
const oneAtATime: TurnPicker = (prompt) => {
  const said = JSON.stringify(prompt.find((message) => message.role === 'user')?.content);
  const done = prompt.filter((message) => message.role === 'tool').length;
  const plan = said.includes('archive then delete')
    ? ['archive-record', 'delete-record']
    : Array.from({ length: Number(/delete (\d+)/.exec(said)?.[1] ?? 0) }, () => 'delete-record');
  if (done >= plan.length) return { text: `Done ${done}.` };
  return { toolCalls: [{ toolName: plan[done]!, args: { id: `rec-${done + 1}` } }] };
};

describe('a grant for this run only (docs/grants.md "For this run")', () => {
  const deletes = recordingTool('delete-record', { requireApproval: true });
  const archives = recordingTool('archive-record', { requireApproval: true });
  let tollgate: Tollgate;

  beforeAll(async () => {
    const { agent } = testAgent('run-grant', [deletes.tool, archives.tool], oneAtATime);
    tollgate = await hostAgents([agent], 'run-grant');
  });
  afterAll(async () => tollgate.shutdown());

  const agent = () => tollgate.getAgent('run-grant');
  const ran = (executions: typeof deletes.executions, runId: string) =>
    executions.filter((e) => e.idempotencyKey.startsWith(`${runId}:`)).length;

  it("lets the tool's later calls in the run go without asking, in a run without memory, audited", async () => {
    const first = await agent().generate('delete 3');
    expect(first.finishReason).toBe('suspended');
    const approvedCall = first.suspendPayload!.toolCallId;
    const done = await agent().approveToolCallGenerate({
      runId: first.runId,
      decidedBy: { id: 'alice' },
      grant: { scope: 'run' },
    });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toBe('Done 3.');
    expect(ran(deletes.executions, first.runId)).toBe(3);
    const audit = await agent().getAuditTrail(first.runId);
    const used = audit.filter((entry) => entry.type === 'grant-used');
    expect(used).toHaveLength(2);
    for (const entry of used) {
      expect(entry).toMatchObject({ grantId: `run:${approvedCall}`, grantedBy: { id: 'alice' } });
      expect(entry).not.toHaveProperty('expiresAt');
    }

    // Another run of the same agent asks again: the grant was for that run only.
    const other = await agent().generate('delete 1');
    expect(other.finishReason).toBe('suspended');
    await agent().declineToolCallGenerate({ runId: other.runId });
    expect(ran(deletes.executions, other.runId)).toBe(0);
  });

  it('covers only the approved tool: another tool of the run still waits', async () => {
    const first = await agent().generate('archive then delete');
    expect(first.suspendPayload?.toolName).toBe('archive-record');
    const next = await agent().approveToolCallGenerate({
      runId: first.runId,
      grant: { scope: 'run' },
    });
    expect(next.finishReason).toBe('suspended');
    expect(next.suspendPayload?.toolName).toBe('delete-record');
    expect(ran(deletes.executions, first.runId)).toBe(0);
    await agent().declineToolCallGenerate({ runId: first.runId });
    expect(ran(deletes.executions, first.runId)).toBe(0);
  });

  it('is given from the CLI with --grant-scope run, which stands alone', async () => {
    const flags = ['--task-queue', tollgate.taskQueue];
    const first = await agent().generate('delete 2');
    const both = await cli([
      'approve',
      first.runId,
      '--grant-scope',
      'run',
      '--grant',
      '4h',
      ...flags,
    ]);
    expect(both.code).toBe(2);
    expect(await agent().pendingToolCalls(first.runId)).toHaveLength(1);
    const approved = await cli(['approve', first.runId, '--grant-scope', 'run', ...flags]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain('Done 2.');
    expect(ran(deletes.executions, first.runId)).toBe(2);
  });

  it('is refused on a signal, and a run grant that is not true is refused, changing nothing', async () => {
    const first = await agent().generate('delete 2');
    const handle = (await tollgate.client()).workflow.getHandle(first.runId);
    const events = (await handle.fetchHistory()).events!.length;
    const bad = { runGrant: 'yes' } as unknown as DecisionInput;
    const refused = await handle.executeUpdate(decisionUpdates.approve, { args: [bad] }).then(
      () => undefined,
      (error: unknown) => error as { cause?: { message?: string } },
    );
    expect(refused?.cause?.message).toContain('"runGrant" may only be true');
    expect((await handle.fetchHistory()).events!.length).toBe(events);
    await handle.signal(SIGNALS.approve, { runGrant: true });
    await eventually(async () =>
      expect((await agent().getAuditTrail(first.runId)).map((e) => e.type)).toContain(
        'rejected-decision',
      ),
    );
    expect(await agent().pendingToolCalls(first.runId)).toHaveLength(1);
    await agent().declineToolCallGenerate({ runId: first.runId });
    expect(ran(deletes.executions, first.runId)).toBe(0);
  });
});

/**
 * "delete both": two parallel deletes (rec-a, rec-b) in one step. "delete, count 8, delete":
 * delete rec-1, eight ungated counts, delete rec-2, one call per step, so the run (which
 * continues as new after 40 events) continues as new between the two deletes.
 */
const reachingScript: TurnPicker = (prompt) => {
  const said = JSON.stringify(prompt.find((message) => message.role === 'user')?.content);
  const done = prompt.filter((message) => message.role === 'tool').length;
  if (said.includes('delete both')) {
    if (done > 0) return { text: 'Both done.' };
    return {
      toolCalls: ['rec-a', 'rec-b'].map((id) => ({
        toolName: 'delete-record',
        args: { id },
        toolCallId: `call-${id}`,
      })),
    };
  }
  const plan = ['delete-record', ...Array<string>(8).fill('count'), 'delete-record'];
  if (done >= plan.length) return { text: `Done ${done}.` };
  const id = done === 0 ? 'rec-1' : done === plan.length - 1 ? 'rec-2' : `${done}`;
  return { toolCalls: [{ toolName: plan[done]!, args: { id } }] };
};

describe('a run grant reaches calls already waiting and the run after a continue-as-new', () => {
  const deletes = recordingTool('delete-record', { requireApproval: true });
  const counts = recordingTool('count');
  const agent = new Agent({
    id: 'run-grant-reach',
    model: scriptedModel(reachingScript, 'run-grant-reach'),
    tools: { 'delete-record': deletes.tool, count: counts.tool },
    defaultOptions: { maxSteps: 20 },
    history: { continueAfterEvents: 40 },
  });
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'run-grant-reach');
  });
  afterAll(async () => tollgate.shutdown());

  const reach = () => tollgate.getAgent('run-grant-reach');
  const ranOn = (runId: string, id: string) =>
    deletes.executions.filter(
      (e) => e.idempotencyKey.startsWith(`${runId}:`) && (e.input as { id: string }).id === id,
    ).length;

  it('approves the other waiting call of the tool: both run, each exactly once, audited as the grant', async () => {
    const first = await reach().generate('delete both');
    expect(first.finishReason).toBe('suspended');
    expect((await reach().pendingToolCalls(first.runId)).map((c) => c.toolCallId).sort()).toEqual([
      'call-rec-a',
      'call-rec-b',
    ]);
    const done = await reach().approveToolCallGenerate({
      runId: first.runId,
      toolCallId: 'call-rec-a',
      decidedBy: { id: 'alice' },
      grant: { scope: 'run' },
    });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toBe('Both done.');
    expect([ranOn(first.runId, 'rec-a'), ranOn(first.runId, 'rec-b')]).toEqual([1, 1]);
    const audit = await reach().getAuditTrail(first.runId);
    expect(audit.filter((e) => e.type === 'grant-used')).toEqual([
      expect.objectContaining({
        toolCallId: 'call-rec-b',
        grantId: 'run:call-rec-a',
        grantedBy: { id: 'alice' },
      }),
    ]);
    expect(
      audit.filter((e) => e.type === 'decision').map((e) => [e.toolCallId, e.channel]),
    ).toEqual([
      ['call-rec-a', 'update'],
      ['call-rec-b', 'grant'],
    ]);
  });

  it('leaves a waiting call the granter may not approve (handed off to bob) waiting', async () => {
    const first = await reach().generate('delete both');
    await reach().handOffToolCall({
      runId: first.runId,
      toolCallId: 'call-rec-b',
      to: 'bob',
      decidedBy: { id: 'carol' },
    });
    const next = await reach().approveToolCallGenerate({
      runId: first.runId,
      toolCallId: 'call-rec-a',
      decidedBy: { id: 'alice' },
      grant: { scope: 'run' },
    });
    expect(next.finishReason).toBe('suspended');
    expect((await reach().pendingToolCalls(first.runId)).map((c) => c.toolCallId)).toEqual([
      'call-rec-b',
    ]);
    expect(ranOn(first.runId, 'rec-a')).toBe(1);
    expect(ranOn(first.runId, 'rec-b')).toBe(0);
    await reach().declineToolCallGenerate({ runId: first.runId, decidedBy: { id: 'bob' } });
    expect(ranOn(first.runId, 'rec-b')).toBe(0);
  });

  it("is carried into the run's next execution: a later call runs without asking", async () => {
    const first = await reach().generate('delete, count 8, delete');
    expect(first.suspendPayload?.toolName).toBe('delete-record');
    const done = await reach().approveToolCallGenerate({
      runId: first.runId,
      decidedBy: { id: 'alice' },
      grant: { scope: 'run' },
    });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toBe('Done 10.');
    expect([ranOn(first.runId, 'rec-1'), ranOn(first.runId, 'rec-2')]).toEqual([1, 1]);
    const client = await tollgate.client();
    expect(await executionsOf(client, first.runId)).toBeGreaterThan(1);
    // The newest execution started with the grant in its input.
    const history = await client.workflow.getHandle(first.runId).fetchHistory();
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
    const input = JSON.parse(
      new TextDecoder().decode(started.input!.payloads![0]!.data!),
    ) as RunInput;
    expect(input.continued?.runGrants).toEqual([
      expect.objectContaining({ toolName: 'delete-record', grantedBy: { id: 'alice' } }),
    ]);
    const used = (await reach().getAuditTrail(first.runId)).filter((e) => e.type === 'grant-used');
    expect(used).toEqual([
      expect.objectContaining({ grantId: `run:${first.suspendPayload!.toolCallId}` }),
    ]);
  });
});
