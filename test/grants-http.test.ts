import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tollgate } from '../src/index.js';
import { TollgateClient } from '../src/http-client/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import {
  deleteByPrompt,
  eventually,
  hostAgents,
  recordingTool,
  testAgent,
  uniqueId,
} from './support/harness.js';

const AGENT = 'grants-http-agent';
const TOKENS = {
  operator: 'grants-operator-token-0123456789',
  alice: 'grants-alice-token-0123456789',
  reader: 'grants-reader-token-0123456789',
};

describe('grants over HTTP and the client SDK, held to the token scope', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent(AGENT, [deleteRecord.tool], deleteByPrompt);
  let tollgate: Tollgate;
  let server: ListeningServer;
  const sdk = (token: string) => new TollgateClient({ baseUrl: server.url, token });

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'grants-http');
    server = await createTollgateServer({
      tollgate,
      auth: {
        tokens: [
          { token: TOKENS.operator, id: 'ops' },
          { token: TOKENS.alice, id: 'alice', scopes: { resources: ['alice'] } },
          { token: TOKENS.reader, id: 'auditor', scopes: { actions: ['read'] } },
        ],
      },
      logError: (error) => console.error(error),
    }).listen({ port: 0 });
  });
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
  });

  const ran = (id: string) =>
    deleteRecord.executions.filter((e) => (e.input as { id: string }).id === id).length;
  const grantOn = (resourceId: string, extra: Record<string, unknown> = {}) => ({
    agentId: AGENT,
    toolName: 'delete-record',
    resourceId,
    for: '2h',
    ...extra,
  });

  it('gives a grant in the token identity; a granted run over HTTP runs at once, once', async () => {
    const thread = uniqueId('thread');
    // A body cannot say who granted: the token's identity is recorded.
    const grant = await sdk(TOKENS.alice).grants.create(
      grantOn('alice', { threadId: thread, grantedBy: { id: 'cfo' } }) as never,
    );
    expect(grant).toMatchObject({ grantedBy: { id: 'alice' }, resourceId: 'alice' });
    const remote = sdk(TOKENS.alice).getAgent(AGENT);
    const output = await remote.generate('delete h1', { memory: { resource: 'alice', thread } });
    expect(output.finishReason).toBe('stop');
    expect(ran('h1')).toBe(1);
    const audit = await remote.getAuditTrail(output.runId);
    expect(audit.find((e) => e.type === 'grant-used')).toMatchObject({
      grantId: grant.grantId,
      grantedBy: { id: 'alice' },
    });
  });

  it('answers 403 for grants outside the token scope, and lists and revokes within it only', async () => {
    const alice = sdk(TOKENS.alice).grants;
    await expect(alice.create(grantOn('bob'))).rejects.toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
    });
    await expect(sdk(TOKENS.reader).grants.create(grantOn('alice'))).rejects.toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
    });
    const bobs = await sdk(TOKENS.operator).grants.create(grantOn('bob'));
    const own = await alice.create(grantOn('alice', { threadId: uniqueId('thread') }));
    const seen = (await alice.list()).map((g) => g.grantId);
    expect(seen).toContain(own.grantId);
    expect(seen).not.toContain(bobs.grantId);
    expect((await sdk(TOKENS.reader).grants.list()).map((g) => g.grantId)).toContain(bobs.grantId);
    await expect(alice.revoke(bobs.grantId)).rejects.toMatchObject({
      status: 404,
      code: 'GRANT_NOT_FOUND',
    });
    await expect(sdk(TOKENS.reader).grants.revoke(own.grantId)).rejects.toMatchObject({
      status: 403,
    });
    expect(await sdk(TOKENS.operator).grants.revoke(bobs.grantId)).toMatchObject({
      grantId: bobs.grantId,
    });
    await expect(sdk(TOKENS.operator).grants.revoke(bobs.grantId)).rejects.toMatchObject({
      status: 409,
      code: 'GRANT_ALREADY_REVOKED',
    });
    expect((await alice.list()).map((g) => g.grantId)).toContain(own.grantId);
  });

  it('gives a grant with an approval over HTTP, in the token identity', async () => {
    const thread = uniqueId('thread');
    const remote = sdk(TOKENS.alice).getAgent(AGENT);
    const parked = await remote.generate('delete h2', { memory: { resource: 'alice', thread } });
    expect(parked.finishReason).toBe('suspended');
    const approved = await remote.approveToolCallGenerate({
      runId: parked.runId,
      grant: { for: '1h', scope: 'thread' },
    });
    expect(approved.finishReason).toBe('stop');
    const grants = await sdk(TOKENS.alice).grants.list({ threadId: thread });
    expect(grants).toMatchObject([{ grantedBy: { id: 'alice' }, toolName: 'delete-record' }]);
    const next = await remote.generate('delete h3', { memory: { resource: 'alice', thread } });
    expect(next.finishReason).toBe('stop');
    expect([ran('h2'), ran('h3')]).toEqual([1, 1]);
  });

  it('answers 422 INVALID_GRANT for a malformed duration or a tool the agent lacks', async () => {
    const ops = sdk(TOKENS.operator).grants;
    const before = await ops.list();
    await expect(ops.create(grantOn('alice', { for: 'a while' }))).rejects.toMatchObject({
      status: 422,
      code: 'INVALID_GRANT',
    });
    await expect(ops.create(grantOn('alice', { toolName: 'drop-table' }))).rejects.toMatchObject({
      status: 422,
      code: 'INVALID_GRANT',
    });
    await expect(ops.revoke('grant-nope')).rejects.toMatchObject({ status: 404 });
    expect(await ops.list()).toEqual(before);
  });

  it('an approval with a grant over HTTP releases the other calls waiting on its thread; release needs decide and the scope', async () => {
    const thread = uniqueId('thread');
    const memory = { resource: 'alice', thread };
    const remote = sdk(TOKENS.alice).getAgent(AGENT);
    const first = await remote.generate('delete w1', { memory });
    const second = await remote.generate('delete w2', { memory });
    expect([first.finishReason, second.finishReason]).toEqual(['suspended', 'suspended']);
    await eventually(async () => {
      const { runs } = await remote.listSuspendedRuns({ threadId: thread, resourceId: 'alice' });
      expect(runs.map((run) => run.runId)).toContain(second.runId);
    }, 20_000);
    const approved = await remote.approveToolCallGenerate({
      runId: first.runId,
      grant: { for: '1h', scope: 'thread' },
    });
    expect(approved.grantRelease).toMatchObject({
      released: [{ runId: second.runId, toolName: 'delete-record' }],
      refused: [],
    });
    const grantId = approved.grantRelease!.grantId;
    await eventually(async () => expect(ran('w2')).toBe(1), 20_000);
    expect(ran('w1')).toBe(1);
    await expect(sdk(TOKENS.reader).grants.release(grantId)).rejects.toMatchObject({
      status: 403,
    });
    const bobs = await sdk(TOKENS.operator).grants.create(grantOn('bob'));
    await expect(sdk(TOKENS.alice).grants.release(bobs.grantId)).rejects.toMatchObject({
      status: 404,
      code: 'GRANT_NOT_FOUND',
    });
    expect(await sdk(TOKENS.alice).grants.release(grantId)).toMatchObject({ released: [] });
  });
});
