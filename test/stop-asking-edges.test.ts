/**
 * Grant releases and live approval rules from the CLI and over HTTP (docs/grant-release.md,
 * docs/live-policies.md): the commands and routes, their scopes, and the calls they let run.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { GrantRelease, LivePolicyResult, Tollgate } from '../src/index.js';
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
import { cli } from './support/cli.js';

const AGENT = 'stop-asking-agent';
const TOKENS = { admin: 'stop-asking-admin-token-0123', decider: 'stop-asking-decider-token-01' };

describe('grant release and live rules from the CLI and over HTTP', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent(AGENT, [deleteRecord.tool], deleteByPrompt);
  let tollgate: Tollgate;
  let server: ListeningServer;
  let flags: string[];
  const sdk = (token: string) => new TollgateClient({ baseUrl: server.url, token });

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'stop-asking');
    flags = ['--task-queue', tollgate.taskQueue];
    server = await createTollgateServer({
      tollgate,
      auth: {
        tokens: [
          { token: TOKENS.admin, id: 'ops', scopes: { actions: ['admin'] } },
          { token: TOKENS.decider, id: 'dee', scopes: { actions: ['read', 'decide'] } },
        ],
      },
    }).listen({ port: 0 });
  });
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
  });

  const a = () => tollgate.getAgent(AGENT);
  const ran = (id: string) =>
    deleteRecord.executions.filter((e) => (e.input as { id: string }).id === id).length;
  const parked = async (prompt: string, memory: { resource: string; thread: string }) => {
    const output = await a().generate(prompt, { memory });
    expect(output.finishReason).toBe('suspended');
    return output.runId;
  };
  const listed = (runIds: string[]) =>
    eventually(async () => {
      const { runs } = await a().listSuspendedRuns({ perPage: 1000 });
      expect(runs.map((r) => r.runId)).toEqual(expect.arrayContaining(runIds));
    }, 20_000);

  it('tollgate release-grant approves the calls a grant covers, once each, and reports them', async () => {
    const where = { resource: uniqueId('tenant'), thread: uniqueId('thread') };
    const runs = [await parked('delete k1', where), await parked('delete k2', where)];
    await listed(runs);
    const grant = await tollgate.grants.create(
      { agentId: AGENT, toolName: 'delete-record', resourceId: where.resource, for: '1h' },
      { identity: { id: 'alice' } },
    );
    const out = await cli(['release-grant', grant.grantId, '--json', ...flags]);
    expect(out.code).toBe(0);
    const { release } = JSON.parse(out.stdout) as { release: GrantRelease };
    expect(release.released.map((r) => r.runId).sort()).toEqual([...runs].sort());
    await eventually(async () => expect([ran('k1'), ran('k2')]).toEqual([1, 1]), 20_000);
    const unknown = await cli(['release-grant', 'grant-nope', ...flags]);
    expect(unknown.code).not.toBe(0);
  });

  it('tollgate live-policy relaxes a tool: its waiting calls run once; live-policies lists the rule; as-coded drops it', async () => {
    const where = { resource: uniqueId('tenant'), thread: uniqueId('thread') };
    const run = await parked('delete m1', where);
    await listed([run]);
    const out = await cli([
      'live-policy',
      AGENT,
      'delete-record',
      '--approval',
      'not-required',
      '--as',
      'ops',
      '--json',
      ...flags,
    ]);
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout) as LivePolicyResult;
    expect(result.released).toMatchObject([{ runId: run }]);
    await eventually(async () => expect(ran('m1')).toBe(1), 20_000);
    const table = await cli(['live-policies', '--agent', AGENT, ...flags]);
    expect(table.stdout).toContain('not-required');
    const bad = await cli(['live-policy', AGENT, 'delete-record', '--approval', 'maybe', ...flags]);
    expect(bad.code).toBe(2);
    const dropped = await cli([
      'live-policy',
      AGENT,
      'delete-record',
      '--approval',
      'as-coded',
      ...flags,
    ]);
    expect(dropped.code).toBe(0);
    expect(await tollgate.livePolicies.list({ agentId: AGENT })).toEqual([]);
    await parked('delete m2', where);
    expect(ran('m2')).toBe(0);
  });

  it('over HTTP a live rule needs admin (403 otherwise, nothing stored); an admin token relaxes and releases', async () => {
    const where = { resource: uniqueId('tenant'), thread: uniqueId('thread') };
    const run = await parked('delete n1', where);
    await listed([run]);
    const change = { agentId: AGENT, toolName: 'delete-record', requireApproval: false };
    await expect(sdk(TOKENS.decider).livePolicies.set(change)).rejects.toMatchObject({
      status: 403,
    });
    expect(await sdk(TOKENS.decider).livePolicies.list()).toEqual([]);
    expect(ran('n1')).toBe(0);
    const result = await sdk(TOKENS.admin).livePolicies.set(change);
    expect(result.rule).toMatchObject({ changedBy: { id: 'ops' }, requireApproval: false });
    // Every waiting call of the tool, on any thread (m2 above waits too).
    expect(result.released).toEqual(
      expect.arrayContaining([expect.objectContaining({ runId: run })]),
    );
    await eventually(async () => expect([ran('n1'), ran('m2')]).toEqual([1, 1]), 20_000);
    await sdk(TOKENS.admin).livePolicies.set({ ...change, requireApproval: null });
  });
});
