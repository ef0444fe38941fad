import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, Tollgate, type ApprovalPolicy } from '../src/index.js';
import { WorkflowNotFoundError } from '@temporalio/client';
import { grantsRegistryId } from '../src/common/wire.js';
import { scriptedModel } from '../src/testing/index.js';
import {
  callNamed,
  gatedRecordingTool,
  publishWithoutWorker,
  uniqueId,
  uniqueQueue,
} from './support/harness.js';

describe('grants: standing approvals kept in Temporal (docs/grants.md)', () => {
  const executed: Array<{ tool: string; id: string }> = [];
  const tool = (id: string, approval?: ApprovalPolicy) =>
    gatedRecordingTool(id, executed, approval);
  const tools = Object.fromEntries(
    [
      tool('delete-record'),
      tool('pay', { approvers: ['cfo'] }),
      tool('transfer', { quorum: 2 }),
    ].map((each) => [each.id, each]),
  );
  const agent = new Agent({ id: 'granted', model: scriptedModel(callNamed), tools });
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = new Tollgate({ agents: { agent }, temporal: { taskQueue: uniqueQueue('grants') } });
    await tollgate.startWorker();
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  const a = () => tollgate.getAgent('granted');
  const ran = (toolName: string, id: string) =>
    executed.filter((e) => e.tool === toolName && e.id === id).length;
  const place = () => ({ resource: uniqueId('tenant'), thread: uniqueId('thread') });
  const grant = (
    where: { resource: string; thread: string },
    extra: { toolName?: string; for?: string | number; thread?: boolean; args?: unknown } = {},
    identity = { id: 'alice' },
  ) =>
    tollgate.grants.create(
      {
        agentId: 'granted',
        toolName: extra.toolName ?? 'delete-record',
        resourceId: where.resource,
        ...(extra.thread === false ? {} : { threadId: where.thread }),
        for: extra.for ?? '1h',
        ...(extra.args !== undefined ? { args: extra.args as never } : {}),
      },
      { identity },
    );
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('runs a granted call at once, exactly once, and audits the grant and who gave it', async () => {
    const where = place();
    const given = await grant(where);
    expect(given).toMatchObject({ grantedBy: { id: 'alice' }, threadId: where.thread });
    const output = await a().generate('delete-record g1', { memory: where });
    expect(output.finishReason).toBe('stop');
    expect(output.text).toContain('g1');
    expect(ran('delete-record', 'g1')).toBe(1);
    const audit = await a().getAuditTrail(output.runId);
    expect(audit.map((e) => e.type)).toEqual(['gate', 'grant-used', 'decision']);
    expect(audit[1]).toMatchObject({ grantId: given.grantId, grantedBy: { id: 'alice' } });
    expect(audit[2]).toMatchObject({
      decision: 'approved',
      channel: 'grant',
      decidedBy: { id: 'alice' },
      grantId: given.grantId,
    });
  });

  it('does not cover another thread, another resource, a run without memory or other tools', async () => {
    const where = place();
    await grant(where);
    const elsewhere = [
      await a().generate('delete-record o1', { memory: { ...where, thread: uniqueId('t') } }),
      await a().generate('delete-record o2', { memory: { ...where, resource: uniqueId('r') } }),
      await a().generate('delete-record o3'),
      await a().generate('pay o4', { memory: where }),
    ];
    expect(elsewhere.map((o) => o.finishReason)).toEqual(Array(4).fill('suspended'));
    expect(executed.filter((e) => /^o\d$/.test(e.id))).toEqual([]);
    // The grant itself is live: on its own thread the same call runs.
    expect((await a().generate('delete-record o5', { memory: where })).finishReason).toBe('stop');
  });

  it('covers every thread of its resource when given for the resource', async () => {
    const where = place();
    await grant(where, { thread: false });
    const output = await a().generate('delete-record r1', {
      memory: { ...where, thread: uniqueId('other-thread') },
    });
    expect(output.finishReason).toBe('stop');
    expect(ran('delete-record', 'r1')).toBe(1);
  });

  it('covers only the given arguments when it names them', async () => {
    const where = place();
    await grant(where, { args: { id: 'a1' } });
    expect((await a().generate('delete-record a2', { memory: where })).finishReason).toBe(
      'suspended',
    );
    expect((await a().generate('delete-record a1', { memory: where })).finishReason).toBe('stop');
    expect([ran('delete-record', 'a1'), ran('delete-record', 'a2')]).toEqual([1, 0]);
  });

  it('waits again once a grant is revoked or has expired, and lists neither', async () => {
    const where = place();
    const revoked = await grant(where);
    expect((await a().generate('delete-record v0', { memory: where })).finishReason).toBe('stop');
    await tollgate.grants.revoke(revoked.grantId, { identity: { id: 'bob' } });
    expect((await a().generate('delete-record v1', { memory: where })).finishReason).toBe(
      'suspended',
    );
    const other = place();
    // Long enough that a loaded machine still runs v3 before it expires.
    const expiring = await grant(other, { for: 8000 });
    expect(
      (await tollgate.grants.list({ resourceId: other.resource })).map((g) => g.grantId),
    ).toEqual([expiring.grantId]);
    expect((await a().generate('delete-record v3', { memory: other })).finishReason).toBe('stop');
    await sleep(Date.parse(expiring.expiresAt) - Date.now() + 300);
    expect((await a().generate('delete-record v2', { memory: other })).finishReason).toBe(
      'suspended',
    );
    expect(['v0', 'v1', 'v3', 'v2'].map((id) => ran('delete-record', id))).toEqual([1, 0, 1, 0]);
    const listed = await tollgate.grants.list({ agentId: 'granted' });
    expect(listed.map((g) => g.grantId)).not.toContain(revoked.grantId);
    expect(listed.map((g) => g.grantId)).not.toContain(expiring.grantId);
  });

  it('stands in only for an approval its granter could give: approvers and quorum hold', async () => {
    const where = place();
    await grant(where, { toolName: 'pay' }, { id: 'mallory' });
    await grant(where, { toolName: 'transfer' }, { id: 'cfo' });
    expect((await a().generate('pay p1', { memory: where })).finishReason).toBe('suspended');
    expect((await a().generate('transfer p2', { memory: where })).finishReason).toBe('suspended');
    await grant(where, { toolName: 'pay' }, { id: 'cfo' });
    expect((await a().generate('pay p3', { memory: where })).finishReason).toBe('stop');
    expect([ran('pay', 'p1'), ran('transfer', 'p2'), ran('pay', 'p3')]).toEqual([0, 0, 1]);
  });

  it('refuses bad grants and bad revocations with typed errors, changing nothing', async () => {
    const where = place();
    const before = await tollgate.grants.list();
    await expect(grant(where, { for: 'soon' })).rejects.toMatchObject({ code: 'INVALID_GRANT' });
    await expect(grant(where, { for: '400 days' })).rejects.toMatchObject({
      code: 'INVALID_GRANT',
    });
    await expect(grant(where, { toolName: 'format-disk' })).rejects.toMatchObject({
      code: 'INVALID_GRANT',
      message: expect.stringContaining('delete-record'),
    });
    await expect(
      tollgate.grants.create({
        agentId: 'nobody',
        toolName: 'delete-record',
        resourceId: 'r',
        for: '1h',
      }),
    ).rejects.toMatchObject({ code: 'AGENT_NOT_FOUND' });
    await expect(tollgate.grants.revoke('grant-unknown')).rejects.toMatchObject({
      code: 'GRANT_NOT_FOUND',
    });
    const given = await grant(where);
    await tollgate.grants.revoke(given.grantId);
    await expect(tollgate.grants.revoke(given.grantId)).rejects.toMatchObject({
      code: 'GRANT_ALREADY_REVOKED',
    });
    expect(await tollgate.grants.list()).toEqual(before);
  });

  it('gives a grant with an approval: the call runs, and later calls on the thread do not wait', async () => {
    const where = place();
    const first = await a().generate('delete-record d1', { memory: where });
    expect(first.finishReason).toBe('suspended');
    const approved = await a().approveToolCallGenerate({
      runId: first.runId,
      decidedBy: { id: 'carol' },
      grant: { for: '1h', scope: 'thread', matchArgs: false },
    });
    expect(approved.finishReason).toBe('stop');
    const [given] = await tollgate.grants.list({ resourceId: where.resource });
    expect(given).toMatchObject({ toolName: 'delete-record', threadId: where.thread });
    expect(given!.grantedBy).toEqual({ id: 'carol' });
    const second = await a().generate('delete-record d2', { memory: where });
    expect(second.finishReason).toBe('stop');
    expect([ran('delete-record', 'd1'), ran('delete-record', 'd2')]).toEqual([1, 1]);
    expect((await a().getAuditTrail(second.runId)).at(-1)).toMatchObject({
      channel: 'grant',
      grantId: given!.grantId,
    });
  });

  it('refuses an approval whose grant is bad, leaving the call waiting and no grant given', async () => {
    const where = place();
    const waiting = await a().generate('delete-record d3', { memory: where });
    const without = await a().generate('delete-record d4');
    for (const [runId, grant] of [
      [waiting.runId, { for: '1h', scope: 'galaxy' }],
      [waiting.runId, { for: 'soon', scope: 'thread' }],
      [without.runId, { for: '1h', scope: 'thread' }],
    ] as const) {
      await expect(a().approveToolCall({ runId, grant: grant as never })).rejects.toMatchObject({
        code: 'INVALID_GRANT',
      });
    }
    expect(await a().pendingToolCalls(waiting.runId)).toHaveLength(1);
    expect(await a().pendingToolCalls(without.runId)).toHaveLength(1);
    expect(await tollgate.grants.list({ resourceId: where.resource })).toEqual([]);
    expect([ran('delete-record', 'd3'), ran('delete-record', 'd4')]).toEqual([0, 0]);
  });

  it('holds every call to the caller scope: grant, list and revoke', async () => {
    const where = place();
    const mine = { scope: { resources: [where.resource] }, identity: { id: 'tenant-admin' } };
    const other = place();
    await expect(
      tollgate.grants.create(
        { agentId: 'granted', toolName: 'delete-record', resourceId: other.resource, for: '1h' },
        mine,
      ),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      tollgate.grants.create(
        { agentId: 'granted', toolName: 'delete-record', resourceId: where.resource, for: '1h' },
        { scope: { actions: ['read'] } },
      ),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const theirs = await grant(other);
    const own = await tollgate.grants.create(
      { agentId: 'granted', toolName: 'delete-record', resourceId: where.resource, for: '1h' },
      mine,
    );
    expect((await tollgate.grants.list({}, mine)).map((g) => g.grantId)).toEqual([own.grantId]);
    await expect(tollgate.grants.revoke(theirs.grantId, mine)).rejects.toMatchObject({
      code: 'GRANT_NOT_FOUND',
    });
    expect((await tollgate.grants.list()).map((g) => g.grantId)).toContain(theirs.grantId);
  });

  it('answers WORKER_UNAVAILABLE while no worker polls the queue, and starts nothing', async () => {
    const queue = uniqueQueue('grants-no-worker');
    const lonely = new Tollgate({
      temporal: { taskQueue: queue },
      decisions: { workerSeenWithin: 2000 },
    });
    try {
      await publishWithoutWorker(lonely, queue, [agent], 'gone-worker');
      const grant = { agentId: 'granted', toolName: 'delete-record', resourceId: 'r', for: '1h' };
      await expect(
        lonely.grants.create(grant, { identity: { id: 'alice' } }),
      ).rejects.toMatchObject({
        code: 'WORKER_UNAVAILABLE',
        message: expect.stringContaining(queue),
      });
      await expect(
        lonely.grants.revoke('grant-unknown', { identity: { id: 'alice' } }),
      ).rejects.toMatchObject({
        code: 'GRANT_NOT_FOUND',
      });
      // Nothing was sent: the queue has no grants registry.
      const client = await lonely.client();
      await expect(
        client.workflow.getHandle(grantsRegistryId(queue)).describe(),
      ).rejects.toBeInstanceOf(WorkflowNotFoundError);
    } finally {
      await lonely.shutdown();
    }
  });
});
