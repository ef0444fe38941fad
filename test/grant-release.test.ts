import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, Tollgate, TollgateError } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { serveOverHttp } from './support/served.js';
import {
  callNamed,
  eventually,
  gatedRecordingTool,
  uniqueId,
  uniqueQueue,
} from './support/harness.js';

describe('approve and stop asking: a grant releases the calls already waiting (docs/grant-release.md)', () => {
  const executed: Array<{ tool: string; id: string }> = [];
  const tools = Object.fromEntries(
    [
      gatedRecordingTool('delete-record', executed),
      gatedRecordingTool('transfer', executed, { quorum: 2 }),
    ].map((each) => [each.id, each]),
  );
  const agent = new Agent({ id: 'releasing', model: scriptedModel(callNamed), tools });
  let tollgate: Tollgate;

  beforeAll(async () => {
    const taskQueue = uniqueQueue('grant-release');
    tollgate = new Tollgate({ agents: { agent }, temporal: { taskQueue } });
    await tollgate.startWorker();
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  const a = () => tollgate.getAgent('releasing');
  const ran = (id: string) => executed.filter((e) => e.id === id).length;
  const waitOn = async (prompt: string, memory: { resource: string; thread: string }) => {
    const output = await a().generate(prompt, { memory });
    expect(output.finishReason).toBe('suspended');
    return output.runId;
  };
  /** Waits until visibility lists every run in `runIds` as waiting. */
  const listed = (resource: string, runIds: string[]) =>
    eventually(async () => {
      const { runs } = await a().listSuspendedRuns({ resourceId: resource, perPage: 100 });
      const seen = runs.filter((run) => run.toolCalls.length > 0).map((run) => run.runId);
      expect(seen.sort()).toEqual(expect.arrayContaining([...runIds].sort()));
    }, 20_000);
  const finished = async (runId: string) => {
    const client = await tollgate.client();
    await client.workflow.getHandle(runId).result();
  };

  it('approving one call with a thread grant runs every call waiting on that thread once, recorded as grant-used, and no other', async () => {
    const where = { resource: uniqueId('tenant'), thread: uniqueId('thread') };
    const first = await waitOn('delete-record t1', where);
    const second = await waitOn('delete-record t2', where);
    const third = await waitOn('delete-record t3', where);
    const otherThread = await waitOn('delete-record t4', { ...where, thread: uniqueId('t') });
    const otherResource = await waitOn('delete-record t5', { ...where, resource: uniqueId('r') });
    await listed(where.resource, [first, second, third, otherThread]);

    const stream = await a().approveToolCall({
      runId: first,
      decidedBy: { id: 'alice' },
      grant: { for: '1h', scope: 'thread' },
    });
    expect(await stream.finishReason).toBe('stop');
    const release = stream.grantRelease!;
    expect(release.released.map((r) => r.runId).sort()).toEqual([second, third].sort());
    expect(release.refused).toEqual([]);
    await Promise.all([second, third].map(finished));
    expect(['t1', 't2', 't3', 't4', 't5'].map(ran)).toEqual([1, 1, 1, 0, 0]);

    const audit = await a().getAuditTrail(second);
    expect(audit.map((e) => e.type)).toEqual(['gate', 'request', 'grant-used', 'decision']);
    expect(audit[2]).toMatchObject({ grantId: release.grantId, grantedBy: { id: 'alice' } });
    expect(audit[3]).toMatchObject({
      decision: 'approved',
      channel: 'grant',
      decidedBy: { id: 'alice' },
      grantId: release.grantId,
    });
    // The first call was approved by a person, not by the grant.
    const own = await a().getAuditTrail(first);
    expect(own.filter((e) => e.type === 'grant-used')).toEqual([]);
    // The other thread and the other resource still wait.
    for (const runId of [otherThread, otherResource]) {
      expect(await a().pendingToolCalls(runId)).toHaveLength(1);
    }
    // Releasing again finds nothing left to release on the thread.
    const again = await tollgate.grants.release(release.grantId);
    expect(again).toMatchObject({ released: [], refused: [], skipped: 0, unanswered: [] });
    expect(ran('t2')).toBe(1);
  });

  it('the streaming HTTP approve carries the release report as its first event: the SDK client reads it as grantRelease', async () => {
    const where = { resource: uniqueId('tenant'), thread: uniqueId('thread') };
    const first = await waitOn('delete-record h1', where);
    const second = await waitOn('delete-record h2', where);
    await listed(where.resource, [first, second]);
    const { server, remote } = await serveOverHttp(tollgate, 'grant-release-token-0123456789');
    try {
      const stream = await remote.getAgent('releasing').approveToolCall({
        runId: first,
        grant: { for: '1h', scope: 'thread' },
      });
      // Read before any chunk: there as soon as the call returns, as in-process.
      const release = stream.grantRelease!;
      expect(release.released.map((r) => r.runId)).toEqual([second]);
      expect(release.refused).toEqual([]);
      expect(await stream.finishReason).toBe('stop');
      await finished(second);
      expect([ran('h1'), ran('h2')]).toEqual([1, 1]);
      const audit = await a().getAuditTrail(second);
      expect(audit.at(-1)).toMatchObject({ channel: 'grant', decidedBy: { id: 'ops' } });

      // Without a grant: no header, no such event, and the stream reads as before.
      const third = await waitOn('delete-record h3', { ...where, thread: uniqueId('t') });
      const plain = await fetch(`${server.url}/api/agents/releasing/approve-tool-call`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer grant-release-token-0123456789',
          'content-type': 'application/json',
          accept: 'text/event-stream',
        },
        body: JSON.stringify({ runId: third }),
      });
      expect(plain.headers.get('x-tollgate-grant-release')).toBeNull();
      const text = await plain.text();
      expect(text).not.toContain('event: grant-release');
      expect(ran('h3')).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('a resource grant released by itself reaches every thread of the resource, and only within the caller scope', async () => {
    const resource = uniqueId('tenant');
    const one = await waitOn('delete-record u1', { resource, thread: uniqueId('t') });
    const two = await waitOn('delete-record u2', { resource, thread: uniqueId('t') });
    await listed(resource, [one, two]);
    const grant = await tollgate.grants.create(
      { agentId: 'releasing', toolName: 'delete-record', resourceId: resource, for: '1h' },
      { identity: { id: 'bob' } },
    );
    const outside = tollgate.grants.release(grant.grantId, { scope: { resources: ['elsewhere'] } });
    await expect(outside).rejects.toMatchObject({ code: 'GRANT_NOT_FOUND' });
    const readOnly = tollgate.grants.release(grant.grantId, { scope: { actions: ['read'] } });
    await expect(readOnly).rejects.toBeInstanceOf(TollgateError);
    expect([ran('u1'), ran('u2')]).toEqual([0, 0]);

    const release = await tollgate.grants.release(grant.grantId, {
      scope: { resources: [resource] },
    });
    expect(release.released.map((r) => r.runId).sort()).toEqual([one, two].sort());
    await Promise.all([one, two].map(finished));
    expect([ran('u1'), ran('u2')]).toEqual([1, 1]);
  });

  it('reports a call the grant cannot approve (a quorum of two) as refused and leaves it waiting', async () => {
    const where = { resource: uniqueId('tenant'), thread: uniqueId('thread') };
    const first = await waitOn('transfer q1', where);
    const second = await waitOn('transfer q2', where);
    await listed(where.resource, [first, second]);
    const stream = await a().approveToolCall({
      runId: first,
      decidedBy: { id: 'carol' },
      grant: { for: '1h', scope: 'thread' },
    });
    expect(await stream.finishReason).toBe('suspended');
    const release = stream.grantRelease!;
    expect(release.released).toEqual([]);
    expect(release.refused).toEqual([
      expect.objectContaining({
        runId: second,
        error: expect.objectContaining({ code: 'INVALID_GRANT' }),
      }),
    ]);
    expect(await a().pendingToolCalls(second)).toHaveLength(1);
    expect([ran('q1'), ran('q2')]).toEqual([0, 0]);
    const audit = await a().getAuditTrail(second);
    expect(audit.map((e) => e.type)).toEqual(['gate', 'request']);
  });

  it('release: false gives the grant without touching the other waiting calls', async () => {
    const where = { resource: uniqueId('tenant'), thread: uniqueId('thread') };
    const first = await waitOn('delete-record n1', where);
    const second = await waitOn('delete-record n2', where);
    await listed(where.resource, [first, second]);
    const stream = await a().approveToolCall({
      runId: first,
      decidedBy: { id: 'alice' },
      grant: { for: '1h', scope: 'thread', release: false },
    });
    expect(await stream.finishReason).toBe('stop');
    expect(stream.grantRelease).toBeUndefined();
    expect(await a().pendingToolCalls(second)).toHaveLength(1);
    expect([ran('n1'), ran('n2')]).toEqual([1, 0]);
  });
});
