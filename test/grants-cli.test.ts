import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Grant, Tollgate } from '../src/index.js';
import {
  deleteByPrompt,
  hostAgents,
  recordingTool,
  testAgent,
  uniqueId,
} from './support/harness.js';
import { cli } from './support/cli.js';

describe('the tollgate CLI: grant, grants, revoke-grant and approve --grant', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent('cli-grants-agent', [deleteRecord.tool], deleteByPrompt);
  let tollgate: Tollgate;
  let flags: string[];

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'cli-grants');
    flags = ['--task-queue', tollgate.taskQueue];
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  const a = () => tollgate.getAgent('cli-grants-agent');
  const ran = (id: string) =>
    deleteRecord.executions.filter((e) => (e.input as { id: string }).id === id).length;
  const place = () => ({ resource: uniqueId('tenant'), thread: uniqueId('thread') });

  it('gives, lists and revokes a grant; bad input exits with the code of its error', async () => {
    const where = place();
    const given = await cli([
      'grant',
      'cli-grants-agent',
      'delete-record',
      '--resource',
      where.resource,
      '--thread',
      where.thread,
      '--for',
      '2h',
      '--as',
      'alice',
      '--json',
      ...flags,
    ]);
    expect(given.stderr).toBe('');
    expect(given.code).toBe(0);
    const { grant } = JSON.parse(given.stdout) as { grant: Grant };
    expect(grant).toMatchObject({ grantedBy: { id: 'alice' }, threadId: where.thread });
    const table = await cli(['grants', '--resource', where.resource, ...flags]);
    expect(table.stdout).toContain(grant.grantId);
    expect(table.stdout).toContain('alice');

    expect((await a().generate('delete c1', { memory: where })).finishReason).toBe('stop');
    expect(ran('c1')).toBe(1);

    const revoked = await cli(['revoke-grant', grant.grantId, ...flags]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked ${grant.grantId}`);
    expect((await a().generate('delete c2', { memory: where })).finishReason).toBe('suspended');
    expect((await cli(['revoke-grant', grant.grantId, ...flags])).code).toBe(5);
    expect((await cli(['revoke-grant', 'grant-nope', ...flags])).code).toBe(4);
    const bad = await cli([
      'grant',
      'cli-grants-agent',
      'delete-record',
      '--resource',
      where.resource,
      '--for',
      'forever',
      ...flags,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('INVALID_GRANT');
  });

  it('approve --grant applies the decision and lets later calls on the thread run at once', async () => {
    const where = place();
    const parked = await a().generate('delete c3', { memory: where });
    expect(parked.finishReason).toBe('suspended');
    const approved = await cli([
      'approve',
      parked.runId,
      '--grant',
      '1h',
      '--grant-scope',
      'thread',
      '--as',
      'bob',
      ...flags,
    ]);
    expect(approved.stderr).toBe('');
    expect(approved.code).toBe(0);
    expect((await a().generate('delete c4', { memory: where })).finishReason).toBe('stop');
    expect([ran('c3'), ran('c4')]).toEqual([1, 1]);
    const listed = await tollgate.grants.list({ resourceId: where.resource });
    expect(listed).toMatchObject([{ grantedBy: { id: 'bob' }, threadId: where.thread }]);
  });
});
