import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tollgate } from '../src/index.js';
import { closeMcpConnections, mcpTools, type McpToolsChange } from '../src/mcp/index.js';
import { chunksOf, eventually, hostAgents, testAgent } from './support/harness.js';
import { callByPrompt, serverCalls, stateDir, stdioServer } from './support/mcp-fixtures.js';
import { DRIFTED_DESCRIPTION } from './support/mcp-test-server.js';

describe("the server's tools/list_changed re-checks the pins at once (docs/mcp.md)", () => {
  let tollgate: Tollgate;
  let dir: string;
  const changes: Record<'refuse' | 'gate' | 'reader', McpToolsChange[]> = {
    refuse: [],
    gate: [],
    reader: [],
  };

  beforeAll(async () => {
    dir = await stateDir('list-changed');
    // Three connections to servers sharing one state: each server notifies its own client.
    const refuse = await mcpTools({
      name: 'watched',
      ...stdioServer(dir),
      onDrift: 'refuse',
      onToolsChanged: (change) => changes.refuse.push(change),
    });
    const gate = await mcpTools({
      name: 'watched',
      ...stdioServer(dir),
      onToolsChanged: (change) => changes.gate.push(change),
    });
    const reader = await mcpTools({
      name: 'watched',
      ...stdioServer(dir),
      include: ['read_file'],
      onToolsChanged: (change) => changes.reader.push(change),
    });
    tollgate = await hostAgents(
      [
        testAgent('mcp-watch-refuse', Object.values(refuse), callByPrompt).agent,
        testAgent('mcp-watch-gate', Object.values(gate), callByPrompt).agent,
        testAgent('mcp-watch-reader', Object.values(reader), callByPrompt).agent,
      ],
      'mcp-watch',
    );
  });
  afterAll(async () => {
    await tollgate.shutdown();
    await closeMcpConnections();
  });

  it('reports the drift as the server announces it, before any call, and the next call follows onDrift', async () => {
    expect(changes.refuse).toEqual([]);
    // The server changes delete_file and sends notifications/tools/list_changed.
    await writeFile(join(dir, 'drift'), '');
    const drifted = await eventually(async () => {
      const [change] = changes.refuse;
      if (!change) throw new Error('no tools/list_changed re-check yet');
      return change;
    }, 5_000);
    expect(drifted).toEqual({
      server: 'watched',
      drifted: [{ tool: 'delete_file', drift: expect.stringContaining(DRIFTED_DESCRIPTION) }],
    });
    await eventually(async () => expect(changes.gate).toHaveLength(1), 5_000);
    expect(changes.gate[0]!.drifted.map((d) => d.tool)).toEqual(['delete_file']);
    // A tool list changed elsewhere: this mcpTools() pinned read_file only, which did not drift.
    await eventually(
      async () => expect(changes.reader).toEqual([{ server: 'watched', drifted: [] }]),
      5_000,
    );
    // Found by the notification alone: nothing was called.
    expect(await serverCalls(dir)).toEqual([]);

    const refused = await tollgate.getAgent('mcp-watch-refuse').stream('delete it');
    const error = (await chunksOf(refused)).find((chunk) => chunk.type === 'tool-error');
    expect(error?.payload).toMatchObject({ error: expect.stringContaining("onDrift: 'refuse'") });
    const gated = await tollgate.getAgent('mcp-watch-gate').generate('delete it');
    expect(gated.finishReason).toBe('suspended');
    expect(await tollgate.getAgent('mcp-watch-gate').pendingToolCalls(gated.runId)).toEqual([
      expect.objectContaining({ gateNote: expect.stringContaining(DRIFTED_DESCRIPTION) }),
    ]);
    await tollgate.getAgent('mcp-watch-gate').declineToolCallGenerate({ runId: gated.runId });
    expect(await serverCalls(dir, 'delete_file')).toEqual([]);
  });

  it('refuses an onToolsChanged that is not a function', async () => {
    await expect(
      mcpTools({ ...stdioServer(dir), onToolsChanged: 'log' as never }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('onToolsChanged'),
    });
  });
});
