import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, Tollgate, type ApprovalPolicy, type HandOffOptions } from '../src/index.js';
import { TollgateClient } from '../src/http-client/index.js';
import { handOffSignal } from '../src/common/messages.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { cli } from './support/cli.js';
import { callNamed, eventually, gatedRecordingTool, uniqueQueue } from './support/harness.js';

describe('hand-off of a waiting approval (issue 28.3, docs/hand-off.md)', () => {
  const executed: Array<{ tool: string; id: string }> = [];
  const tool = (id: string, approval: ApprovalPolicy) => gatedRecordingTool(id, executed, approval);
  const tools = Object.fromEntries(
    [
      tool('drop', { approvers: ['alice', 'role:dba'], separateRequester: true }),
      tool('gate', { approvers: ['role:ops'] }),
    ].map((each) => [each.id, each]),
  );
  const agent = new Agent({ id: 'handing', model: scriptedModel(callNamed), tools });
  let tollgate: Tollgate;
  let server: ListeningServer;
  const remote = (token: string) =>
    new TollgateClient({ baseUrl: `${server.url}/`, token }).getAgent('handing');

  beforeAll(async () => {
    tollgate = new Tollgate({
      agents: { agent },
      temporal: { taskQueue: uniqueQueue('hand-off') },
    });
    await tollgate.startWorker();
    server = await createTollgateServer({
      tollgate,
      auth: {
        tokens: [
          { token: 'hand-off-ops-token-0123', id: 'olga', roles: ['ops'] },
          {
            token: 'hand-off-viewer-token-01',
            id: 'vic',
            roles: ['ops'],
            scopes: { actions: ['read'] },
          },
        ],
      },
      logError: () => undefined,
    }).listen({ port: 0 });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await tollgate?.shutdown();
  });

  const a = () => tollgate.getAgent('handing');
  const ran = (toolName: string, id: string) =>
    executed.filter((e) => e.tool === toolName && e.id === id).length;
  const historyLength = async (runId: string) =>
    (await (await tollgate.client()).workflow.getHandle(runId).fetchHistory()).events?.length ?? 0;
  const park = async (prompt: string) => {
    const out = await a().generate(prompt, { requestContext: { requester: 'rita' } });
    expect(out.finishReason).toBe('suspended');
    return out.runId;
  };

  it('an approver hands the call to another person with a note; only they decide it; it runs once', async () => {
    const runId = await park('drop d1');
    const handed = await a().handOffToolCall({
      runId,
      to: 'bob',
      note: 'Bob owns this table',
      decidedBy: { id: 'alice' },
    });
    expect(handed).toMatchObject({ toolName: 'drop', decision: 'handed-off', approvers: ['bob'] });
    const [pending] = await a().pendingToolCalls(runId);
    expect(pending).toMatchObject({
      approvers: ['bob'],
      reassigned: [
        { kind: 'hand-off', to: ['bob'], by: { id: 'alice' }, note: 'Bob owns this table' },
      ],
    });

    const before = await historyLength(runId);
    await expect(a().approveToolCall({ runId, decidedBy: { id: 'alice' } })).rejects.toMatchObject({
      code: 'NOT_AN_APPROVER',
    });
    expect(await historyLength(runId)).toBe(before);
    expect(ran('drop', 'd1')).toBe(0);

    const out = await a().approveToolCallGenerate({ runId, decidedBy: { id: 'bob' } });
    expect(out.text).toBe('Got: {"done":"d1"}');
    expect(ran('drop', 'd1')).toBe(1);
    const audit = await a().getAuditTrail(runId);
    expect(audit.filter((entry) => entry.type === 'hand-off')).toEqual([
      expect.objectContaining({
        decidedBy: { id: 'alice' },
        channel: 'update',
        from: ['alice', 'role:dba'],
        to: ['bob'],
        note: 'Bob owns this table',
      }),
    ]);
    expect(audit.at(-1)).toMatchObject({
      type: 'decision',
      decision: 'approved',
      decidedBy: { id: 'bob' },
    });
  }, 60_000);

  it('refuses a hand-off by a non-approver, without identity, or by the requester, writing nothing', async () => {
    const runId = await park('drop d2');
    const before = await historyLength(runId);
    const refusals: Array<[Partial<HandOffOptions>, string]> = [
      [{ decidedBy: { id: 'mallory' } }, 'NOT_AN_APPROVER'],
      [{}, 'APPROVER_REQUIRED'],
      // Under four-eyes the requester may not pick who approves its own call, even as an approver.
      [{ decidedBy: { id: 'rita', roles: ['dba'] } }, 'REQUESTER_CANNOT_APPROVE'],
      [{ decidedBy: { id: 'alice' }, fingerprint: 'f'.repeat(64) }, 'FINGERPRINT_MISMATCH'],
    ];
    for (const [extra, code] of refusals) {
      await expect(a().handOffToolCall({ runId, to: ['mallory'], ...extra })).rejects.toMatchObject(
        {
          code,
        },
      );
    }
    await expect(
      a().handOffToolCall({ runId, to: [], decidedBy: { id: 'alice' } }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
    expect(await historyLength(runId)).toBe(before);
    expect((await a().pendingToolCalls(runId))[0]?.approvers).toEqual(['alice', 'role:dba']);
  }, 60_000);

  it('keeps the chain of hand-offs; a decline by the last delegate means the tool never runs', async () => {
    const runId = await park('drop d3');
    await a().handOffToolCall({ runId, to: ['role:dba'], decidedBy: { id: 'alice' } });
    await a().handOffToolCall({
      runId,
      to: ['erin'],
      note: 'on call this week',
      decidedBy: { id: 'dave', roles: ['dba'] },
    });
    const out = await a().declineToolCallGenerate({ runId, decidedBy: { id: 'erin' } });
    expect(out.finishReason).toBe('stop');
    expect(ran('drop', 'd3')).toBe(0);
    const chain = (await a().getAuditTrail(runId)).filter((entry) => entry.type === 'hand-off');
    expect(chain.map((entry) => [entry.decidedBy.id, entry.from, entry.to])).toEqual([
      ['alice', ['alice', 'role:dba'], ['role:dba']],
      ['dave', ['role:dba'], ['erin']],
    ]);
  }, 60_000);

  it('takes the hand-off as a signal from other languages; a refused one is audited and changes nothing', async () => {
    const runId = await park('drop d4');
    const handle = (await tollgate.client()).workflow.getHandle(runId);
    await handle.signal(handOffSignal, { to: ['zed'], decidedBy: { id: 'mallory' } });
    await eventually(async () => {
      const refused = (await a().getAuditTrail(runId)).filter(
        (e) => e.type === 'rejected-decision',
      );
      expect(refused).toEqual([
        expect.objectContaining({ kind: 'handOff', code: 'NOT_AN_APPROVER' }),
      ]);
    });
    expect((await a().pendingToolCalls(runId))[0]?.approvers).toEqual(['alice', 'role:dba']);
    await handle.signal(handOffSignal, { to: ['zed'], decidedBy: { id: 'alice' } });
    await eventually(async () =>
      expect((await a().pendingToolCalls(runId))[0]?.approvers).toEqual(['zed']),
    );
    await a().approveToolCallGenerate({ runId, decidedBy: { id: 'zed' } });
    expect(ran('drop', 'd4')).toBe(1);
  }, 60_000);

  it("over HTTP: in the token's name with the decide scope; a read-only token is refused", async () => {
    const runId = (await a().generate('gate g1')).runId;
    await expect(
      remote('hand-off-viewer-token-01').handOffToolCall({ runId, to: ['dana'] }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const handed = await remote('hand-off-ops-token-0123').handOffToolCall({
      runId,
      to: ['dana'],
      note: 'yours',
    });
    expect(handed.approvers).toEqual(['dana']);
    const audit = await a().getAuditTrail(runId);
    expect(audit.find((entry) => entry.type === 'hand-off')).toMatchObject({
      decidedBy: { id: 'olga', roles: ['ops'] },
    });
    await expect(
      remote('hand-off-ops-token-0123').approveToolCallGenerate({ runId }),
    ).rejects.toMatchObject({ code: 'NOT_AN_APPROVER' });
    await a().approveToolCallGenerate({ runId, decidedBy: { id: 'dana' } });
    expect(ran('gate', 'g1')).toBe(1);
  }, 60_000);

  it('from the CLI: tollgate hand-off, and a refusal with its code', async () => {
    const runId = await park('drop d5');
    const flags = ['--task-queue', tollgate.taskQueue];
    const refused = await cli(['hand-off', runId, '--to', 'frank', '--as', 'mallory', ...flags]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('NOT_AN_APPROVER');
    const done = await cli([
      'hand-off',
      runId,
      '--to',
      'frank,role:sre',
      '--as',
      'alice',
      '--note',
      'frank knows it',
      ...flags,
    ]);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('Handed off drop');
    expect((await a().pendingToolCalls(runId))[0]?.approvers).toEqual(['frank', 'role:sre']);
    await a().approveToolCallGenerate({ runId, decidedBy: { id: 'frank' } });
    expect(ran('drop', 'd5')).toBe(1);
  }, 60_000);
});
