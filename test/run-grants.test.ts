import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tollgate } from '../src/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import { cli } from './support/cli.js';
import { eventually, hostAgents, recordingTool, testAgent } from './support/harness.js';
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
