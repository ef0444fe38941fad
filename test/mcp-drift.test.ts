import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tollgate } from '../src/index.js';
import { closeMcpConnections, mcpTools } from '../src/mcp/index.js';
import { hostAgents, testAgent, uniqueId, uniqueQueue } from './support/harness.js';
import { callByPrompt, serverCalls, stateDir, stdioServer } from './support/mcp-fixtures.js';
import { DRIFTED_DESCRIPTION } from './support/mcp-test-server.js';

/** Sets a flag of the test server (`drift`, `duplicate`, `endless-pages`) and lets it notice. */
async function flag(dir: string, name: string): Promise<void> {
  await writeFile(join(dir, name), '');
  await new Promise((resolve) => setTimeout(resolve, 300));
}

describe('MCP definition changes against approvals and grants (docs/mcp.md "Pinning")', () => {
  let tollgate: Tollgate;
  const dirs: Record<string, string> = {};

  beforeAll(async () => {
    const agents = [];
    for (const name of ['granted', 'regate', 'duplicate', 'endless']) {
      dirs[name] = await stateDir(name);
      const tools = await mcpTools({ name, ...stdioServer(dirs[name]) });
      agents.push(testAgent(`mcp-${name}`, Object.values(tools), callByPrompt).agent);
    }
    tollgate = await hostAgents(agents, 'mcp-drift');
  });
  afterAll(async () => {
    await tollgate.shutdown();
    await closeMcpConnections();
  });

  const agent = (name: string) => tollgate.getAgent(`mcp-${name}`);
  const deletes = async (name: string) => (await serverCalls(dirs[name]!, 'delete_file')).length;

  it("does not let a grant cover a changed tool's call: it waits for a person, and the audit says why", async () => {
    const memory = { resource: uniqueId('tenant'), thread: uniqueId('thread') };
    const grant = await tollgate.grants.create(
      {
        agentId: 'mcp-granted',
        toolName: 'delete_file',
        resourceId: memory.resource,
        threadId: memory.thread,
        for: '1h',
      },
      { identity: { id: 'alice' } },
    );
    // The grant covers the tool as pinned: the call runs at once.
    const before = await agent('granted').generate('delete it', { memory });
    expect(before.finishReason).toBe('stop');
    expect(await deletes('granted')).toBe(1);

    await flag(dirs.granted!, 'drift');
    const changed = await agent('granted').generate('delete it', { memory });
    expect(changed.finishReason).toBe('suspended');
    expect(await deletes('granted')).toBe(1);
    expect(await agent('granted').pendingToolCalls(changed.runId)).toEqual([
      expect.objectContaining({ gateNote: expect.stringContaining(DRIFTED_DESCRIPTION) }),
    ]);
    const audit = await agent('granted').getAuditTrail(changed.runId);
    expect(audit.map((entry) => entry.type)).not.toContain('grant-used');
    expect(audit[0]).toMatchObject({
      type: 'gate',
      gated: true,
      grantable: false,
      note: expect.stringContaining('No grant covers a changed tool'),
    });
    expect(
      (await tollgate.grants.list({}, { identity: { id: 'alice' } })).map((g) => g.grantId),
    ).toContain(grant.grantId);

    const done = await agent('granted').declineToolCallGenerate({ runId: changed.runId });
    expect(done.finishReason).toBe('stop');
    expect(await deletes('granted')).toBe(1);
  });

  it('re-gates an approved call whose tool changed before it ran, then runs what the approver saw, once', async () => {
    const first = await agent('regate').generate('delete it');
    expect(first.finishReason).toBe('suspended');
    await flag(dirs.regate!, 'drift');

    const approved = await agent('regate').approveToolCallGenerate({ runId: first.runId });
    expect(approved.finishReason).toBe('suspended');
    expect(await deletes('regate')).toBe(0);
    const [waiting] = await agent('regate').pendingToolCalls(first.runId);
    expect(waiting?.gateNote).toContain('changed after the call');
    expect(waiting?.gateNote).toContain(DRIFTED_DESCRIPTION);
    expect(await agent('regate').getAuditTrail(first.runId)).toContainEqual(
      expect.objectContaining({
        type: 'gate',
        source: 'definition-change',
        gated: true,
        note: expect.stringContaining(DRIFTED_DESCRIPTION),
      }),
    );

    // A decision given for the call as first shown (its old fingerprint, as an unused link of the
    // first request carries) cannot answer the new request.
    expect(waiting?.fingerprint).not.toBe(first.suspendPayload?.fingerprint);
    await expect(
      agent('regate').approveToolCall({
        runId: first.runId,
        fingerprint: first.suspendPayload!.fingerprint,
      }),
    ).rejects.toMatchObject({ code: 'FINGERPRINT_MISMATCH' });
    expect(await deletes('regate')).toBe(0);

    // Approved again, now showing the change: bound to the changed definition, it runs once.
    const done = await agent('regate').approveToolCallGenerate({
      runId: first.runId,
      fingerprint: waiting!.fingerprint,
    });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toBe('"deleted /tmp/a.txt"');
    expect(await deletes('regate')).toBe(1);
  });

  it('treats a tool listed twice under one name as a change: its call waits for approval', async () => {
    await flag(dirs.duplicate!, 'duplicate');
    const first = await agent('duplicate').generate('read it');
    expect(first.finishReason).toBe('suspended');
    expect(await agent('duplicate').pendingToolCalls(first.runId)).toEqual([
      expect.objectContaining({ gateNote: expect.stringContaining('listed 2 times') }),
    ]);
    const done = await agent('duplicate').declineToolCallGenerate({ runId: first.runId });
    expect(done.finishReason).toBe('stop');
    expect(await serverCalls(dirs.duplicate!, 'read_file')).toHaveLength(0);

    await expect(
      mcpTools({ name: 'duplicate', ...stdioServer(dirs.duplicate!) }),
    ).rejects.toMatchObject({
      code: 'MCP_INVALID_RESPONSE',
      message: expect.stringContaining('more than once'),
    });
  });

  it('stops a server with endless tools/list pages with a typed error naming it, before a call and at start-up', async () => {
    await flag(dirs.endless!, 'endless-pages');
    const started = Date.now();
    const first = await agent('endless').generate('read it');
    // The definition could not be checked: the call is gated, and nothing ran.
    expect(first.finishReason).toBe('suspended');
    const [waiting] = await agent('endless').pendingToolCalls(first.runId);
    expect(waiting?.gateNote).toContain('MCP server "endless" answered tools/list past 100 pages');
    // Approved anyway: the check right before the call stops it again, and the server is not called.
    const done = await agent('endless').approveToolCallGenerate({ runId: first.runId });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toContain('past 100 pages');
    expect(await serverCalls(dirs.endless!, 'read_file')).toHaveLength(0);
    expect(Date.now() - started).toBeLessThan(20_000);

    await expect(
      mcpTools({ name: 'endless', ...stdioServer(dirs.endless!) }),
    ).rejects.toMatchObject({
      code: 'MCP_TOOL_LIST_LIMIT',
      message: expect.stringContaining('MCP server "endless"'),
    });
  }, 60_000);
});

describe('a grant given with an approval is bound to the definition the approver saw', () => {
  afterAll(closeMcpConnections);

  it('does not carry over to a changed definition pinned by a later deploy', async () => {
    const dir = await stateDir('bound');
    const queue = uniqueQueue('mcp-bound');
    const deploy = async () => {
      const tools = await mcpTools({ name: 'files', ...stdioServer(dir) });
      const { agent } = testAgent('mcp-bound', Object.values(tools), callByPrompt);
      return hostAgents([agent], 'mcp-bound', queue);
    };
    const memory = { resource: uniqueId('tenant'), thread: uniqueId('thread') };
    const deletes = async () => (await serverCalls(dir, 'delete_file')).length;

    const first = await deploy();
    const agent = first.getAgent('mcp-bound');
    const waiting = await agent.generate('delete it', { memory });
    const [call] = await agent.pendingToolCalls(waiting.runId);
    expect(call?.definition).toMatch(/^[0-9a-f]{64}$/);
    await agent.approveToolCallGenerate({
      runId: waiting.runId,
      decidedBy: { id: 'alice' },
      grant: { for: '1h', scope: 'thread' },
    });
    expect((await agent.generate('delete it', { memory })).finishReason).toBe('stop');
    expect(await deletes()).toBe(2);
    await first.shutdown();
    await closeMcpConnections();

    // The server changes the tool; the next deploy pins the changed definition, so no drift shows.
    await flag(dir, 'drift');
    const second = await deploy();
    try {
      const after = await second.getAgent('mcp-bound').generate('delete it', { memory });
      expect(after.finishReason).toBe('suspended');
      expect(await deletes()).toBe(2);
      const audit = await second.getAgent('mcp-bound').getAuditTrail(after.runId);
      expect(audit.map((entry) => entry.type)).not.toContain('grant-used');
      await second.getAgent('mcp-bound').declineToolCallGenerate({ runId: after.runId });
      expect(await deletes()).toBe(2);
    } finally {
      await second.shutdown();
    }
  }, 60_000);
});
