import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Agent, createTool, Tollgate } from '../src/index.js';
import { TollgateClient } from '../src/http-client/index.js';
import { signLink } from '../src/channels/signed-link.js';
import { createTollgateServer, loadAuthConfig, type ListeningServer } from '../src/server/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { deleteByPrompt, uniqueQueue } from './support/harness.js';

const CAROL = 'carol-finance-token-rights-01';
const DAVE = 'dave-finance-token-rights-01';
const BOB = 'bob-engineering-token-rights-01';
const SECRET = 'rights-test-signing-secret-0123456789abcdef';

type Token = { token: string; id: string; roles: string[] };
const everyone: Token[] = [
  { token: CAROL, id: 'carol', roles: ['finance'] },
  { token: DAVE, id: 'dave', roles: ['finance'] },
  { token: BOB, id: 'bob', roles: ['eng'] },
];

describe('rights are checked at decision time: the tokens file is read again when it changes', () => {
  const deleted: string[] = [];
  const deleteRecord = createTool({
    id: 'delete-record',
    inputSchema: z.object({ id: z.string() }),
    requireApproval: true,
    approval: { approvers: ['role:finance'] },
    execute: async (input) => {
      deleted.push(input.id);
      return { deleted: input.id };
    },
  });
  const agent = new Agent({
    id: 'rights-agent',
    model: scriptedModel(deleteByPrompt),
    tools: { 'delete-record': deleteRecord },
  });
  const file = join(mkdtempSync(join(tmpdir(), 'tollgate-rights-')), 'tokens.json');
  let tollgate: Tollgate;
  let server: ListeningServer;
  const as = (token: string) => new TollgateClient({ baseUrl: server.url, token });

  /** Replaces the file as an operator should: write a new one, then rename it over the old. */
  function writeTokens(tokens: unknown): void {
    writeFileSync(`${file}.new`, typeof tokens === 'string' ? tokens : JSON.stringify(tokens));
    renameSync(`${file}.new`, file);
  }

  async function historyLength(runId: string): Promise<number> {
    const history = await (await tollgate.client()).workflow.getHandle(runId).fetchHistory();
    return history.events!.length;
  }

  /** Bob starts a run that deletes `id`; it waits for a finance approver. */
  async function park(id: string): Promise<{ runId: string; toolCallId: string }> {
    const first = await as(BOB).getAgent('rights-agent').generate(`delete ${id}`);
    expect(first.finishReason).toBe('suspended');
    return { runId: first.runId, toolCallId: first.toolCalls[0]!.toolCallId };
  }

  beforeAll(async () => {
    writeTokens(everyone);
    tollgate = new Tollgate({
      agents: { agent },
      temporal: { taskQueue: uniqueQueue('decision-rights') },
    });
    await tollgate.startWorker();
    server = await createTollgateServer({
      tollgate,
      auth: loadAuthConfig({ file }),
      channels: { signingSecret: SECRET },
      logError: () => undefined,
    }).listen({ port: 0 });
  });
  beforeEach(() => writeTokens(everyone));
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
  });

  it('refuses an approver whose role was taken away after the gate, runs nothing, and lets a current approver decide', async () => {
    const { runId, toolCallId } = await park('rec-role');
    const before = await historyLength(runId);
    writeTokens(everyone.map((t) => (t.id === 'carol' ? { ...t, roles: ['eng'] } : t)));
    await expect(
      as(CAROL).getAgent('rights-agent').approveToolCall({ runId }),
    ).rejects.toMatchObject({ status: 403, code: 'NOT_AN_APPROVER' });
    const [batch] = await as(CAROL).decideMany([
      { agentId: 'rights-agent', runId, toolCallId, action: 'approve' },
    ]);
    expect(batch).toMatchObject({ ok: false, error: { code: 'NOT_AN_APPROVER' } });
    expect(deleted).not.toContain('rec-role');
    expect(await historyLength(runId)).toBe(before);
    expect(await as(DAVE).getAgent('rights-agent').pendingToolCalls(runId)).toHaveLength(1);
    const done = await as(DAVE).getAgent('rights-agent').approveToolCallGenerate({ runId });
    expect(done.finishReason).toBe('stop');
    expect(deleted.filter((id) => id === 'rec-role')).toHaveLength(1);
    const audit = await as(DAVE).getAgent('rights-agent').getAuditTrail(runId);
    expect(audit.filter((e) => e.type === 'decision')).toEqual([
      expect.objectContaining({
        decision: 'approved',
        decidedBy: { id: 'dave', roles: ['finance'] },
      }),
    ]);
  }, 60_000);

  it('refuses a revoked token on every path (401) and leaves the run decidable', async () => {
    const { runId, toolCallId } = await park('rec-revoked');
    const batch = [{ agentId: 'rights-agent', runId, toolCallId, action: 'approve' as const }];
    writeTokens(everyone.filter((t) => t.id !== 'carol'));
    const carol = as(CAROL);
    await expect(carol.getAgent('rights-agent').approveToolCall({ runId })).rejects.toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
    });
    await expect(carol.decideMany(batch)).rejects.toMatchObject({
      status: 401,
    });
    await expect(carol.getAgent('rights-agent').declineToolCall({ runId })).rejects.toMatchObject({
      status: 401,
    });
    expect(deleted).not.toContain('rec-revoked');
    const [approved] = await as(DAVE).decideMany(batch);
    expect(approved).toMatchObject({ ok: true, decision: 'approved' });
    await (await tollgate.client()).workflow.getHandle(runId).result();
    expect(deleted.filter((id) => id === 'rec-revoked')).toHaveLength(1);
  }, 60_000);

  it('lets a role given after the gate decide: rights are those at decision time', async () => {
    const { runId } = await park('rec-granted');
    await expect(as(BOB).getAgent('rights-agent').approveToolCall({ runId })).rejects.toMatchObject(
      { code: 'NOT_AN_APPROVER' },
    );
    writeTokens(everyone.map((t) => (t.id === 'bob' ? { ...t, roles: ['eng', 'finance'] } : t)));
    const done = await as(BOB).getAgent('rights-agent').approveToolCallGenerate({ runId });
    expect(done.finishReason).toBe('stop');
    expect(deleted.filter((id) => id === 'rec-granted')).toHaveLength(1);
  }, 60_000);

  it('decides a signed link with the roles its identity has now', async () => {
    const { runId, toolCallId } = await park('rec-link');
    const [call] = await as(DAVE).getAgent('rights-agent').pendingToolCalls(runId);
    const link = signLink(
      {
        agentId: 'rights-agent',
        runId,
        toolCallId,
        fingerprint: call!.fingerprint,
        action: 'approve',
        decidedBy: { id: 'carol', roles: ['finance'] },
        expiresAt: Date.now() + 60_000,
      },
      SECRET,
    );
    writeTokens(everyone.map((t) => (t.id === 'carol' ? { ...t, roles: [] } : t)));
    const post = () =>
      fetch(`${server.url}/links/${link}`, {
        method: 'POST',
        headers: { accept: 'application/json' },
      });
    const refused = await post();
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'NOT_AN_APPROVER' } });
    expect(deleted).not.toContain('rec-link');
    writeTokens(everyone);
    const accepted = await post();
    expect(accepted.status).toBe(200);
    await (await tollgate.client()).workflow.getHandle(runId).result();
    expect(deleted.filter((id) => id === 'rec-link')).toHaveLength(1);
  }, 60_000);

  it('refuses every request while the tokens file is invalid (503), and recovers when it is fixed', async () => {
    const { runId } = await park('rec-broken');
    writeTokens('[{"token": "half-written');
    await expect(
      as(DAVE).getAgent('rights-agent').approveToolCall({ runId }),
    ).rejects.toMatchObject({ status: 503, code: 'TOKENS_UNAVAILABLE' });
    expect(deleted).not.toContain('rec-broken');
    writeTokens(everyone);
    const done = await as(DAVE).getAgent('rights-agent').approveToolCallGenerate({ runId });
    expect(done.finishReason).toBe('stop');
    expect(deleted.filter((id) => id === 'rec-broken')).toHaveLength(1);
  }, 60_000);
});
