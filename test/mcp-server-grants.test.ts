import { afterEach, describe, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tollgate } from '../src/index.js';
import { closeMcpConnections, mcpTools } from '../src/mcp/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import {
  eventually,
  hostAgents,
  lastToolOutputs,
  testAgent,
  uniqueId,
  uniqueQueue,
} from './support/harness.js';
import { callByPrompt, serverCalls, stateDir, stdioServer } from './support/mcp-fixtures.js';

/** One release: a new listing of the server and a worker on `taskQueue`; every call gated. */
async function release(dir: string, taskQueue: string): Promise<Tollgate> {
  const tools = await mcpTools({
    name: 'files',
    ...stdioServer(dir),
    include: ['read_file', 'delete_file'],
    requireApproval: true,
  });
  const { agent } = testAgent('mcp-grant', Object.values(tools), callByPrompt);
  return hostAgents([agent], 'mcp-grant', taskQueue);
}

describe('a grant for every tool of one MCP server (docs/grants.md)', () => {
  const running: Tollgate[] = [];
  afterEach(async () => {
    for (const tollgate of running.splice(0)) await tollgate.shutdown();
    await closeMcpConnections();
  });

  it("covers each of the server's tools while its pins are those it was given for, and nothing after", async () => {
    const dir = await stateDir('server-grant');
    const taskQueue = uniqueQueue('mcp-grant');
    const first = await release(dir, taskQueue);
    running.push(first);
    await eventually(async () =>
      expect(Object.keys((await first.mcpPins.read('files'))?.pins ?? {}).sort()).toEqual([
        'delete_file',
        'read_file',
      ]),
    );
    const memory = { resource: uniqueId('tenant'), thread: uniqueId('thread') };
    const alice = { identity: { id: 'alice' } };
    const give = (tollgate: Tollgate) =>
      tollgate.grants.create(
        { agentId: 'mcp-grant', mcpServer: 'files', ...grantPlace(memory), for: '1h' },
        alice,
      );
    const count = async (tool: string) => (await serverCalls(dir, tool)).length;

    await expect(
      first.grants.create(
        {
          agentId: 'mcp-grant',
          mcpServer: 'files',
          toolName: 'read_file',
          ...grantPlace(memory),
          for: '1h',
        },
        alice,
      ),
    ).rejects.toMatchObject({
      code: 'INVALID_GRANT',
      message: expect.stringContaining('not both'),
    });
    await expect(
      first.grants.create(
        { agentId: 'mcp-grant', mcpServer: 'nope', ...grantPlace(memory), for: '1h' },
        alice,
      ),
    ).rejects.toMatchObject({
      code: 'INVALID_GRANT',
      message: expect.stringContaining('no stored pins'),
    });

    const grant = await give(first);
    expect(grant.toolName).toBe('mcp:files/*');
    const agent = first.getAgent('mcp-grant');
    for (const [prompt, tool] of [
      ['read it', 'read_file'],
      ['delete it', 'delete_file'],
    ] as const) {
      const ran = await agent.generate(prompt, { memory });
      expect(ran.finishReason).toBe('stop');
      expect(await count(tool)).toBe(1);
      expect(await agent.getAuditTrail(ran.runId)).toContainEqual(
        expect.objectContaining({ type: 'grant-used', toolName: tool, grantId: grant.grantId }),
      );
    }
    // Another thread of the resource: the grant names one thread.
    const elsewhere = await agent.generate('delete it', {
      memory: { resource: memory.resource, thread: uniqueId('thread') },
    });
    expect(elsewhere.finishReason).toBe('suspended');
    await agent.declineToolCallGenerate({ runId: elsewhere.runId });
    await running.pop()!.shutdown();
    await closeMcpConnections();

    // The server changes delete_file; the next release pins the change once an admin re-pins it.
    await writeFile(join(dir, 'drift'), '');
    const second = await release(dir, taskQueue);
    running.push(second);
    const next = second.getAgent('mcp-grant');
    const drifted = await next.generate('delete it', { memory });
    expect(drifted.finishReason).toBe('suspended');
    expect((await next.getAuditTrail(drifted.runId))[0]).toMatchObject({ grantable: false });
    await next.declineToolCallGenerate({ runId: drifted.runId });

    await second.mcpPins.repin('files', ['delete_file'], { identity: { id: 'root' } });
    // The pins changed since the grant: it covers neither tool, changed or not.
    for (const prompt of ['delete it', 'read it']) {
      const waiting = await next.generate(prompt, { memory });
      expect(waiting.finishReason).toBe('suspended');
      const audit = await next.getAuditTrail(waiting.runId);
      expect(audit.map((entry) => entry.type)).not.toContain('grant-used');
      expect(audit[0]).not.toMatchObject({ grantable: false });
      await next.declineToolCallGenerate({ runId: waiting.runId });
    }
    expect(await count('delete_file')).toBe(1);
    expect(await count('read_file')).toBe(1);

    // A grant given now, for the pins as they are, covers the changed tool.
    const again = await give(second);
    const ran = await next.generate('delete it', { memory });
    expect(ran.finishReason).toBe('stop');
    expect(await next.getAuditTrail(ran.runId)).toContainEqual(
      expect.objectContaining({ type: 'grant-used', grantId: again.grantId }),
    );
    expect(await count('delete_file')).toBe(2);
  }, 90_000);
});

describe('releasing a grant for every tool of one MCP server (docs/grant-release.md)', () => {
  const running: Tollgate[] = [];
  afterEach(async () => {
    for (const tollgate of running.splice(0)) await tollgate.shutdown();
    await closeMcpConnections();
  });

  it("approves the waiting calls of the server's tools, not another server's, and nothing once its pins changed", async () => {
    const dir = await stateDir('server-release');
    const otherDir = await stateDir('server-release-other');
    const files = await mcpTools({
      name: 'files',
      ...stdioServer(dir),
      include: ['read_file', 'delete_file'],
      requireApproval: true,
    });
    const other = await mcpTools({
      name: 'other',
      ...stdioServer(otherDir),
      prefix: 'other_',
      include: ['read_file'],
      requireApproval: true,
    });
    const { agent: defined } = testAgent(
      'mcp-release',
      [...Object.values(files), ...Object.values(other)],
      byWord,
    );
    const tollgate = await hostAgents([defined], 'mcp-release');
    running.push(tollgate);
    await eventually(async () => {
      expect(Object.keys((await tollgate.mcpPins.read('files'))?.pins ?? {})).toHaveLength(2);
      expect(Object.keys((await tollgate.mcpPins.read('other'))?.pins ?? {})).toHaveLength(1);
    });
    const agent = tollgate.getAgent('mcp-release');
    const alice = { identity: { id: 'alice' } };
    const resource = uniqueId('tenant');
    const wait = async (prompt: string, resourceId = resource) => {
      const memory = { resource: resourceId, thread: uniqueId('thread') };
      const run = await agent.generate(prompt, { memory });
      expect(run.finishReason).toBe('suspended');
      return run.runId;
    };
    const reading = await wait('read it');
    const deleting = await wait('delete it');
    const elsewhere = await wait('other read');
    const grant = await tollgate.grants.create(
      { agentId: 'mcp-release', mcpServer: 'files', resourceId: resource, for: '1h' },
      alice,
    );

    // Visibility lists a run that just started to wait a moment later.
    await eventually(async () =>
      expect((await agent.listSuspendedRuns({ resourceId: resource })).runs).toHaveLength(3),
    );
    const release = await tollgate.grants.release(grant.grantId);
    expect(release.refused).toEqual([]);
    expect(release.released.map((call) => call.runId).sort()).toEqual([reading, deleting].sort());
    await eventually(async () => {
      expect(await serverCalls(dir, 'read_file')).toHaveLength(1);
      expect(await serverCalls(dir, 'delete_file')).toHaveLength(1);
    });
    expect(await agent.getAuditTrail(deleting)).toContainEqual(
      expect.objectContaining({ type: 'grant-used', toolName: 'delete_file' }),
    );
    // The other server's call still waits and never ran.
    expect(await agent.pendingToolCalls(elsewhere)).toHaveLength(1);
    expect(await serverCalls(otherDir)).toHaveLength(0);
    // Released once: a second release finds nothing left to approve.
    expect((await tollgate.grants.release(grant.grantId)).released).toEqual([]);

    // A grant given, then another tool of the server re-pinned: its release approves nothing,
    // not even a call of the tool whose pin did not change.
    const later = uniqueId('tenant');
    const stale = await wait('read it', later);
    const before = await tollgate.grants.create(
      { agentId: 'mcp-release', mcpServer: 'files', resourceId: later, for: '1h' },
      alice,
    );
    await tollgate.mcpPins.repin('files', ['delete_file'], { identity: { id: 'root' } });
    await eventually(async () =>
      expect((await agent.listSuspendedRuns({ resourceId: later })).runs).toHaveLength(1),
    );
    expect(await tollgate.grants.release(before.grantId)).toMatchObject({
      released: [],
      refused: [],
      unanswered: [],
    });
    expect(await agent.pendingToolCalls(stale)).toHaveLength(1);
    expect(await serverCalls(dir, 'read_file')).toHaveLength(1);
    await agent.declineToolCallGenerate({ runId: elsewhere });
    await agent.declineToolCallGenerate({ runId: stale });
  }, 120_000);
});

/** `read` and `delete` call the files server's tools, `other` the other server's read_file. */
const byWord: TurnPicker = (prompt) => {
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: 'Done.' };
  const said = JSON.stringify(prompt.at(-1)?.content ?? '');
  const toolName = said.includes('other')
    ? 'other_read_file'
    : said.includes('delete')
      ? 'delete_file'
      : 'read_file';
  return { toolCalls: [{ toolName, args: { path: '/tmp/a.txt' } }] };
};

function grantPlace(memory: { resource: string; thread: string }) {
  return { resourceId: memory.resource, threadId: memory.thread };
}
