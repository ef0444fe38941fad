import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  Agent,
  createTool,
  Tollgate,
  type ApprovalPolicy,
  type ReminderInfo,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import {
  callNamed,
  chunksOf,
  eventually,
  gatedRecordingTool,
  uniqueQueue,
} from './support/harness.js';

describe('governance (SPEC §10)', () => {
  const executed: Array<{ tool: string; id: string }> = [];
  const reminders: ReminderInfo[] = [];
  const seenByAfterHook: unknown[] = [];
  const tool = (id: string, approval?: ApprovalPolicy) =>
    gatedRecordingTool(id, executed, approval);
  // Keyed by id: the model calls each tool by its id (SPEC §1 "Tool names": keys are names).
  const tools = Object.fromEntries(
    [
      // Long enough that a loaded machine still reads the request before the deadline passes.
      tool('expiring', { timeout: 4000 }),
      tool('auto-approve', { timeout: 1000, onTimeout: 'approve' }),
      tool('failing', { timeout: 1000, onTimeout: 'fail' }),
      tool('racing', { timeout: 3000 }),
      // Temporal timers may fire up to about a second late, so the intervals here are generous.
      tool('reminded', {
        timeout: '6 seconds',
        remind: { every: 700, notify: (info) => void reminders.push(info) },
      }),
      tool('pay', { approvers: ['role:finance', 'cfo'] }),
      tool('transfer', { quorum: 2 }),
      tool('deploy', { separateRequester: true }),
      tool('delete-record'),
      createTool({
        id: 'lookup',
        inputSchema: z.object({ id: z.string() }),
        execute: async (input) => ({ found: input.id }),
      }),
    ].map((each) => [each.id, each]),
  );
  const agent = new Agent({
    id: 'governed',
    model: scriptedModel(callNamed),
    tools,
    hooks: {
      beforeToolCall: ({ input }) =>
        (input as { id: string }).id === 'blocked'
          ? { proceed: false, output: 'blocked by hook' }
          : undefined,
      afterToolCall: ({ output }) => void seenByAfterHook.push(output),
    },
  });
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = new Tollgate({
      agents: { agent },
      temporal: { taskQueue: uniqueQueue('governance') },
      policies: { 'deletes-only': ({ toolName }) => toolName.startsWith('delete') },
    });
    await tollgate.startWorker();
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  const a = () => tollgate.getAgent('governed');
  const ran = (toolName: string, id: string) =>
    executed.filter((e) => e.tool === toolName && e.id === id).length;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const result = async (runId: string) =>
    (await tollgate.client()).workflow.getHandle(runId).result();

  it('expires an undecided call at its deadline: recorded as expired, the model told, nothing run', async () => {
    const stream = await a().stream('expiring e1');
    const chunks = await chunksOf(stream);
    const approval = chunks.find((c) => c.type === 'tool-call-approval')!.payload as {
      expiresAt: string;
      toolCallId: string;
    };
    expect(Date.parse(approval.expiresAt) - Date.now()).toBeGreaterThan(0);
    const [pending] = await a().pendingToolCalls(stream.runId);
    expect(pending!.expiresAt).toBe(approval.expiresAt);
    expect(await result(stream.runId)).toMatchObject({
      text: expect.stringContaining('(expired)'),
    });
    expect(ran('expiring', 'e1')).toBe(0);
    await expect(
      a().approveToolCall({ runId: stream.runId, toolCallId: approval.toolCallId }),
    ).rejects.toMatchObject({ code: expect.stringMatching(/APPROVAL_EXPIRED|RUN_FINISHED/) });
    const audit = await a().getAuditTrail(stream.runId);
    expect(audit.map((e) => e.type)).toEqual(['gate', 'request', 'expiry']);
    expect(audit[2]).toMatchObject({ toolCallId: approval.toolCallId, onTimeout: 'decline' });
  });

  it('refuses a decision that arrives after the expiry while the run goes on', async () => {
    const first = await a().generate('expiring e2 then wait');
    // Until the run recorded the expiry: its 4 s timer may fire late on a loaded machine, and a
    // decision that came first would rightly be taken.
    await eventually(
      async () =>
        expect((await a().getAuditTrail(first.runId)).map((e) => e.type)).toContain('expiry'),
      15_000,
    );
    await expect(
      a().approveToolCall({ runId: first.runId, toolCallId: first.suspendPayload!.toolCallId }),
    ).rejects.toMatchObject({
      code: expect.stringMatching(/APPROVAL_EXPIRED|RUN_FINISHED/),
    });
    expect(ran('expiring', 'e2')).toBe(0);
  });

  it("runs the call at its deadline with onTimeout 'approve', and fails the run with 'fail'", async () => {
    const approved = await a().generate('auto-approve x1');
    expect(await result(approved.runId)).toMatchObject({ finishReason: 'stop' });
    expect(ran('auto-approve', 'x1')).toBe(1);
    const failed = await a().generate('failing f1');
    await expect(result(failed.runId)).rejects.toBeDefined();
    expect(ran('failing', 'f1')).toBe(0);
    const audit = await a().getAuditTrail(failed.runId);
    expect(audit.find((e) => e.type === 'expiry')).toMatchObject({ onTimeout: 'fail' });
  });

  it('settles a decision racing the expiry one way only: approved and run once, or expired and refused', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 3; round++) {
      const id = `r${round}`;
      const first = await a().generate(`racing ${id}`);
      const expiresAt = Date.parse((await a().pendingToolCalls(first.runId))[0]!.expiresAt!);
      await sleep(Math.max(0, expiresAt - Date.now() - 5 + round * 5));
      const decision = await a()
        .approveToolCall({ runId: first.runId })
        .then(
          () => 'approved',
          (error: { code?: string }) => error.code ?? 'error',
        );
      await result(first.runId);
      outcomes.push(decision);
      expect(ran('racing', id)).toBe(decision === 'approved' ? 1 : 0);
      if (decision !== 'approved')
        expect(decision).toMatch(/APPROVAL_EXPIRED|RUN_FINISHED|NO_PENDING_TOOL_CALL/);
    }
    expect(outcomes).toHaveLength(3);
  });

  it('reminds at each interval while the call waits, with how long it has waited, then stops', async () => {
    const before = reminders.length;
    const first = await a().generate('reminded m1');
    await eventually(async () => expect(reminders.length - before).toBeGreaterThanOrEqual(2), 4500);
    await a().approveToolCall({ runId: first.runId });
    // The run takes the decision once a reminder in flight has been sent: all are in after it ends.
    await result(first.runId);
    const mine = reminders.slice(before).filter((r) => r.runId === first.runId);
    expect(mine[0]).toMatchObject({
      toolName: 'reminded',
      args: { id: 'm1' },
      expiresAt: expect.any(String),
    });
    expect(mine[1]!.waitedMs).toBeGreaterThan(mine[0]!.waitedMs);
    const count = reminders.length;
    await sleep(2000);
    expect(reminders.length).toBe(count);
    expect((await a().getAuditTrail(first.runId)).filter((e) => e.type === 'reminder').length).toBe(
      mine.length,
    );
  });

  it('lets only approvers decide: an update from someone else is refused, a signal recorded without effect', async () => {
    const first = await a().generate('pay p1');
    await expect(
      a().approveToolCall({ runId: first.runId, decidedBy: { id: 'bob', roles: ['eng'] } }),
    ).rejects.toMatchObject({ code: 'NOT_AN_APPROVER' });
    await expect(a().approveToolCall({ runId: first.runId })).rejects.toMatchObject({
      code: 'APPROVER_REQUIRED',
    });
    const handle = (await tollgate.client()).workflow.getHandle(first.runId);
    await handle.signal('approve', { decidedBy: { id: 'mallory' } });
    await eventually(async () => {
      const audit = await a().getAuditTrail(first.runId);
      expect(audit.at(-1)).toMatchObject({
        type: 'rejected-decision',
        code: 'NOT_AN_APPROVER',
        channel: 'signal',
        decidedBy: { id: 'mallory' },
      });
    });
    expect(ran('pay', 'p1')).toBe(0);
    const done = await a().approveToolCallGenerate({
      runId: first.runId,
      decidedBy: { id: 'carol', roles: ['finance'] },
    });
    expect(done.finishReason).toBe('stop');
    expect(ran('pay', 'p1')).toBe(1);
  });

  it('needs a quorum of two distinct approvers: a duplicate is refused, the second approver runs the call', async () => {
    const first = await a().generate('transfer q1');
    const recorded = await a().approveToolCall({ runId: first.runId, decidedBy: { id: 'alice' } });
    const chunks = await chunksOf(recorded);
    expect(chunks[0]).toMatchObject({
      type: 'tool-call-approval',
      payload: { quorum: 2, approvals: [expect.objectContaining({ id: 'alice' })] },
    });
    expect(await recorded.finishReason).toBe('suspended');
    expect((await a().pendingToolCalls(first.runId))[0]).toMatchObject({
      quorum: 2,
      approvals: [expect.objectContaining({ id: 'alice' })],
    });
    await expect(
      a().approveToolCall({ runId: first.runId, decidedBy: { id: 'alice' } }),
    ).rejects.toMatchObject({ code: 'DUPLICATE_APPROVER' });
    expect(ran('transfer', 'q1')).toBe(0);
    const done = await a().approveToolCallGenerate({
      runId: first.runId,
      decidedBy: { id: 'bob' },
    });
    expect(done.finishReason).toBe('stop');
    expect(ran('transfer', 'q1')).toBe(1);
  });

  it("keeps the run's requester from approving its own call", async () => {
    const first = await a().generate('deploy d1', { requestContext: { requester: 'alice' } });
    await expect(
      a().approveToolCall({ runId: first.runId, decidedBy: { id: 'alice' } }),
    ).rejects.toMatchObject({ code: 'REQUESTER_CANNOT_APPROVE' });
    const done = await a().approveToolCallGenerate({
      runId: first.runId,
      decidedBy: { id: 'bob' },
    });
    expect(done.finishReason).toBe('stop');
    expect(ran('deploy', 'd1')).toBe(1);
  });

  it('approves with edited arguments: validated, run with the edits, told to the model, audited with both', async () => {
    const first = await a().generate('delete-record original');
    await expect(
      a().approveToolCall({ runId: first.runId, args: { id: 42 } }),
    ).rejects.toMatchObject({
      code: 'INVALID_DECISION',
      message: expect.stringContaining('args.id'),
    });
    const stream = await a().approveToolCall({
      runId: first.runId,
      args: { id: 'edited' },
      decidedBy: { id: 'ops' },
    });
    const chunks = await chunksOf(stream);
    expect(chunks[0]).toMatchObject({
      type: 'tool-result',
      payload: { args: { id: 'edited' }, originalArgs: { id: 'original' } },
    });
    expect(await stream.text).toContain('The approver edited the arguments');
    expect(ran('delete-record', 'edited')).toBe(1);
    expect(ran('delete-record', 'original')).toBe(0);
    const decision = (await a().getAuditTrail(first.runId)).find((e) => e.type === 'decision');
    expect(decision).toMatchObject({
      decision: 'approved',
      channel: 'update',
      decidedBy: { id: 'ops' },
      fingerprint: first.suspendPayload!.fingerprint,
      editedArgs: { id: 'edited' },
      editedFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('runs hooks after the gate: beforeToolCall can skip the execution with its own output', async () => {
    const output = await a().generate('lookup blocked');
    expect(output.text).toBe('Got: "blocked by hook"');
    expect(seenByAfterHook).toContain('blocked by hook');
    const normal = await a().generate('lookup fine');
    expect(normal.text).toBe('Got: {"found":"fine"}');
  });

  it('evaluates a named policy on the worker, and gates every call for an unknown name', async () => {
    const lookup = await a().generate('lookup n1', { requireToolApproval: 'deletes-only' });
    expect(lookup.finishReason).toBe('stop');
    const unknown = await a().generate('lookup n2', { requireToolApproval: 'no-such-policy' });
    expect(unknown.finishReason).toBe('suspended');
    const gate = (await a().getAuditTrail(unknown.runId)).find((e) => e.type === 'gate');
    expect(gate).toMatchObject({
      gated: true,
      source: 'named:no-such-policy',
      note: expect.stringContaining('no policy'),
    });
  });
});
