import { afterEach, describe, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tollgate } from '../src/index.js';
import { closeMcpConnections, mcpTools, type McpToolsOptions } from '../src/mcp/index.js';
import { eventually, hostAgents, testAgent, uniqueQueue } from './support/harness.js';
import { cli } from './support/cli.js';
import { callByPrompt, serverCalls, stateDir, stdioServer } from './support/mcp-fixtures.js';
import { DRIFTED_DESCRIPTION } from './support/mcp-test-server.js';

/**
 * One release of a worker: a new `mcpTools()` listing (a new server process) and a new Tollgate
 * on the same task queue. `delete_file` runs ungated while unchanged, so only drift gates it.
 */
async function release(
  dir: string,
  taskQueue: string,
  options: Partial<McpToolsOptions> = {},
): Promise<Tollgate> {
  const tools = await mcpTools({
    name: 'files',
    ...stdioServer(dir),
    include: ['delete_file'],
    tools: { delete_file: { requireApproval: false } },
    ...options,
  });
  const { agent } = testAgent('mcp-pins', Object.values(tools), callByPrompt);
  return hostAgents([agent], 'mcp-pins', taskQueue);
}

describe('MCP pins across deploys (docs/mcp.md "Pins across deploys")', () => {
  const running: Tollgate[] = [];
  afterEach(async () => {
    for (const tollgate of running.splice(0)) await tollgate.shutdown();
    await closeMcpConnections();
  });

  /** Release 1 pins and runs the tool once, stops; then the server's tool changes. */
  async function deployedThenChanged(onDrift: 'gate' | 'refuse') {
    const dir = await stateDir(`pins-${onDrift}`);
    const taskQueue = uniqueQueue('mcp-pins');
    const first = await release(dir, taskQueue, { onDrift });
    running.push(first);
    await eventually(async () =>
      expect((await first.mcpPins.read('files'))?.pins.delete_file).toBeDefined(),
    );
    const ran = await first.getAgent('mcp-pins').generate('delete it');
    expect(ran.finishReason).toBe('stop');
    expect(await serverCalls(dir, 'delete_file')).toHaveLength(1);
    await running.pop()!.shutdown();
    await closeMcpConnections();

    await writeFile(join(dir, 'drift'), '');
    // The pins are read from Temporal alone: no worker runs now.
    const reader = new Tollgate({ temporal: { taskQueue } });
    const stored = await reader.mcpPins.read('files');
    await reader.shutdown();
    expect(stored?.pins.delete_file?.definition).toMatchObject({ description: 'Deletes a file' });

    const second = await release(dir, taskQueue, { onDrift });
    running.push(second);
    const deletes = async () => (await serverCalls(dir, 'delete_file')).length;
    return { second, agent: second.getAgent('mcp-pins'), deletes };
  }

  it("gates a tool that changed across a deploy (onDrift 'gate'), runs it once when approved, and runs it ungated after a re-pin", async () => {
    const { second, agent, deletes } = await deployedThenChanged('gate');

    const waiting = await agent.generate('delete it');
    expect(waiting.finishReason).toBe('suspended');
    const [pending] = await agent.pendingToolCalls(waiting.runId);
    expect(pending?.gateNote).toContain('changed since it was pinned');
    expect(pending?.gateNote).toContain(DRIFTED_DESCRIPTION);
    expect(await deletes()).toBe(1);
    const approved = await agent.approveToolCallGenerate({ runId: waiting.runId });
    expect(approved.finishReason).toBe('stop');
    expect(await deletes()).toBe(2);

    // Not re-pinned: the next call waits again.
    const again = await agent.generate('delete it');
    expect(again.finishReason).toBe('suspended');
    await agent.declineToolCallGenerate({ runId: again.runId });
    expect(await deletes()).toBe(2);

    const repinned = await second.mcpPins.repin('files', ['delete_file'], {
      identity: { id: 'alice' },
    });
    expect(repinned.repins.at(-1)).toMatchObject({
      tools: ['delete_file'],
      repinnedBy: { id: 'alice' },
    });
    const accepted = await agent.generate('delete it');
    expect(accepted.finishReason).toBe('stop');
    expect(await deletes()).toBe(3);
    expect(await agent.getAuditTrail(accepted.runId)).toEqual([
      expect.objectContaining({ type: 'gate', toolName: 'delete_file', gated: false }),
    ]);
    const pinned = (await second.mcpPins.read('files'))?.pins.delete_file;
    expect(pinned?.definition).toMatchObject({ description: DRIFTED_DESCRIPTION });
  });

  it("refuses a tool that changed across a deploy (onDrift 'refuse') without running it, until re-pinned", async () => {
    const { second, agent, deletes } = await deployedThenChanged('refuse');

    const refused = await agent.generate('delete it');
    expect(refused.finishReason).toBe('stop');
    expect(refused.text).toContain('refused');
    expect(refused.text).toContain(DRIFTED_DESCRIPTION);
    expect(await deletes()).toBe(1);

    await expect(
      second.mcpPins.repin('files', [], { scope: { actions: ['decide'] } }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const flags = ['--task-queue', second.taskQueue];
    const unknown = await cli(['mcp', 'repin', 'files', '--tool', 'no_such_tool', ...flags]);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('MCP_PIN_NOT_FOUND');
    const repinned = await cli(['mcp', 'repin', 'files', '--as', 'carol', ...flags]);
    expect(repinned.stderr).toBe('');
    expect(repinned.code).toBe(0);
    expect(repinned.stdout).toContain('Re-pinned delete_file of MCP server files');
    expect((await second.mcpPins.read('files'))?.repins.at(-1)).toMatchObject({
      tools: ['delete_file'],
      repinnedBy: { id: 'carol' },
    });
    const accepted = await agent.generate('delete it');
    expect(accepted.finishReason).toBe('stop');
    expect(accepted.text).toBe('"deleted /tmp/a.txt"');
    expect(await deletes()).toBe(2);
  });

  it('lets pins given by hand win over stored ones', async () => {
    const dir = await stateDir('pins-by-hand');
    const taskQueue = uniqueQueue('mcp-pins');
    const first = await release(dir, taskQueue);
    running.push(first);
    await eventually(async () =>
      expect((await first.mcpPins.read('files'))?.pins.delete_file).toBeDefined(),
    );
    await running.pop()!.shutdown();
    await closeMcpConnections();
    await writeFile(join(dir, 'drift'), '');
    const changed = await mcpTools({
      name: 'files',
      ...stdioServer(dir),
      include: ['delete_file'],
    });
    const fingerprint = changed.delete_file!.mcp.fingerprint;
    await closeMcpConnections();

    const second = await release(dir, taskQueue, { pinned: { delete_file: fingerprint } });
    running.push(second);
    const ran = await second.getAgent('mcp-pins').generate('delete it');
    expect(ran.finishReason).toBe('stop');
    expect(await serverCalls(dir, 'delete_file')).toHaveLength(1);
  });
});
