import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tollgate } from '../src/index.js';
import { closeMcpConnections, mcpTools } from '../src/mcp/index.js';
import { chunksOf, hostAgents, testAgent, typesOf } from './support/harness.js';
import { callByPrompt, serverCalls, stateDir, stdioServer } from './support/mcp-fixtures.js';
import {
  DRIFTED_DESCRIPTION,
  MEMO_QUESTION,
  MEMO_SCHEMA,
  TRANSFER_QUESTION,
  TRANSFER_SCHEMA,
} from './support/mcp-test-server.js';

describe('MCP tools over stdio', () => {
  let tollgate: Tollgate;
  let dir: string;
  let driftDir: string;

  beforeAll(async () => {
    dir = await stateDir('stdio');
    driftDir = await stateDir('drift');
    const tools = await mcpTools({ name: 'files', ...stdioServer(dir) });
    // Both pinned before the server changes delete_file.
    const gateOnDrift = await mcpTools({ name: 'files', ...stdioServer(driftDir) });
    const refuseOnDrift = await mcpTools({
      name: 'files',
      ...stdioServer(driftDir),
      onDrift: 'refuse',
      include: ['delete_file'],
    });
    await writeFile(join(driftDir, 'drift'), '');
    tollgate = await hostAgents(
      [
        testAgent('mcp-agent', Object.values(tools), callByPrompt).agent,
        testAgent('mcp-drift-gate', Object.values(gateOnDrift), callByPrompt).agent,
        testAgent('mcp-drift-refuse', Object.values(refuseOnDrift), callByPrompt).agent,
      ],
      'mcp',
    );
  });
  afterAll(async () => {
    await tollgate.shutdown();
    await closeMcpConnections();
  });

  const agent = (id = 'mcp-agent') => tollgate.getAgent(id);

  it('runs a read-only tool without a gate, exactly once', async () => {
    const stream = await agent().stream('read it');
    const chunks = await chunksOf(stream);
    expect(typesOf(chunks)).not.toContain('tool-call-approval');
    expect(await stream.finishReason).toBe('stop');
    expect(await stream.text).toBe('"contents of /tmp/a.txt"');
    expect(await serverCalls(dir, 'read_file')).toHaveLength(1);
    expect(await agent().getAuditTrail(stream.runId)).toEqual([
      expect.objectContaining({ type: 'gate', toolName: 'read_file', gated: false }),
    ]);
  });

  it('holds a destructive tool for approval and runs it once when approved', async () => {
    const before = (await serverCalls(dir, 'delete_file')).length;
    const first = await agent().generate('delete it');
    expect(first.finishReason).toBe('suspended');
    expect(first.suspendPayload).toMatchObject({
      toolName: 'delete_file',
      args: { path: '/tmp/a.txt' },
      requiresApproval: true,
    });
    expect(await serverCalls(dir, 'delete_file')).toHaveLength(before);
    const done = await agent().approveToolCallGenerate({
      runId: first.runId,
      fingerprint: first.suspendPayload!.fingerprint,
    });
    expect(done.text).toBe('"deleted /tmp/a.txt"');
    expect(await serverCalls(dir, 'delete_file')).toHaveLength(before + 1);
  });

  it('never calls the server for a declined call', async () => {
    const before = (await serverCalls(dir)).length;
    const first = await agent().generate('delete it');
    expect(first.finishReason).toBe('suspended');
    const done = await agent().declineToolCallGenerate({ runId: first.runId, reason: 'no' });
    expect(done.finishReason).toBe('stop');
    expect(await serverCalls(dir)).toHaveLength(before);
  });

  it('gates a tool whose definition changed, showing the change in the request and the audit', async () => {
    // read_file did not change: it still runs ungated.
    const read = await agent('mcp-drift-gate').generate('read it');
    expect(read.finishReason).toBe('stop');
    const stream = await agent('mcp-drift-gate').stream('delete it');
    const chunks = await chunksOf(stream);
    const request = chunks.find((chunk) => chunk.type === 'tool-call-approval');
    expect(request?.payload).toMatchObject({
      toolName: 'delete_file',
      gateNote: expect.stringContaining(DRIFTED_DESCRIPTION),
    });
    expect(JSON.stringify(request?.payload)).toContain('uploadTo');
    expect(await agent('mcp-drift-gate').pendingToolCalls(stream.runId)).toEqual([
      expect.objectContaining({ gateNote: expect.stringContaining('definition drift') }),
    ]);
    expect(await agent('mcp-drift-gate').getAuditTrail(stream.runId)).toContainEqual(
      expect.objectContaining({
        type: 'gate',
        gated: true,
        note: expect.stringContaining(DRIFTED_DESCRIPTION),
      }),
    );
    expect(await serverCalls(driftDir, 'delete_file')).toHaveLength(0);
    const done = await agent('mcp-drift-gate').declineToolCallGenerate({ runId: stream.runId });
    expect(done.finishReason).toBe('stop');
    expect(await serverCalls(driftDir, 'delete_file')).toHaveLength(0);
  });

  it("refuses a changed tool's call with onDrift 'refuse', without running it", async () => {
    const stream = await agent('mcp-drift-refuse').stream('delete it');
    const chunks = await chunksOf(stream);
    expect(typesOf(chunks)).not.toContain('tool-call-approval');
    const error = chunks.find((chunk) => chunk.type === 'tool-error');
    expect(error?.payload).toMatchObject({
      toolName: 'delete_file',
      error: expect.stringContaining('refused'),
    });
    expect(await agent('mcp-drift-refuse').getAuditTrail(stream.runId)).toEqual([
      expect.objectContaining({
        type: 'gate',
        gated: false,
        note: expect.stringContaining(DRIFTED_DESCRIPTION),
      }),
    ]);
    expect(await serverCalls(driftDir, 'delete_file')).toHaveLength(0);
  });

  it("parks a call on the server's elicitation with its schema, and sends the answer back", async () => {
    const stream = await agent().stream('transfer 5');
    const chunks = await chunksOf(stream);
    const suspended = chunks.find((chunk) => chunk.type === 'tool-call-suspended');
    expect(suspended?.payload).toMatchObject({
      toolName: 'transfer',
      suspendPayload: { kind: 'mcp-elicitation', message: TRANSFER_QUESTION(5) },
    });
    const payload = suspended!.payload as { resumeSchema: string; toolCallId: string };
    expect(JSON.parse(payload.resumeSchema).anyOf[0]).toEqual(TRANSFER_SCHEMA);

    // Data that fails the server's schema is refused before it reaches the run.
    const client = await tollgate.client();
    const eventsBefore = (await client.workflow.getHandle(stream.runId).fetchHistory()).events!
      .length;
    await expect(
      agent().resumeStream({ account: 'DE02' }, { runId: stream.runId }),
    ).rejects.toMatchObject({ code: 'INVALID_RESUME_DATA' });
    expect((await client.workflow.getHandle(stream.runId).fetchHistory()).events!.length).toBe(
      eventsBefore,
    );

    const done = await agent().resumeGenerate(
      { account: 'DE02 1203', confirm: true },
      { runId: stream.runId },
    );
    expect(done.text).toBe('"transferred 5 EUR to DE02 1203"');
    const calls = await serverCalls(dir, 'transfer');
    expect(calls.filter((call) => call.event === 'elicited')).toEqual([
      expect.objectContaining({ answer: { account: 'DE02 1203', confirm: true } }),
    ]);
    expect(calls.filter((call) => call.event === 'done')).toHaveLength(1);
  });

  it('answers earlier elicitations again when the server asks a second question', async () => {
    const first = await agent().generate('transfer 100');
    expect(first.finishReason).toBe('suspended');
    const second = await agent().resumeGenerate(
      { account: 'FR76 3000', confirm: true },
      { runId: first.runId },
    );
    expect(second.finishReason).toBe('suspended');
    expect(second.suspendPayload).toMatchObject({
      suspendPayload: {
        message: MEMO_QUESTION,
        requestedSchema: MEMO_SCHEMA,
        answered: [{ content: { account: 'FR76 3000', confirm: true } }],
      },
    });
    const done = await agent().resumeGenerate({ memo: 'rent' }, { runId: first.runId });
    expect(done.text).toBe('"transferred 100 EUR to FR76 3000 with memo rent"');
  });

  it('fails the call with MCP_INVALID_RESPONSE when the server answers off-schema', async () => {
    const stream = await agent().stream('broken');
    const chunks = await chunksOf(stream);
    const error = chunks.find((chunk) => chunk.type === 'tool-error');
    expect(error?.payload).toMatchObject({
      toolName: 'broken',
      error: expect.stringContaining('does not follow the MCP schema'),
    });
    expect(await stream.finishReason).toBe('stop');
    // Not retried: the server saw the call once.
    expect(await serverCalls(dir, 'broken')).toHaveLength(1);
    expect(await attemptsOfTool(stream.runId)).toEqual([1]);
  });

  it('fails the call with MCP_SERVER_CLOSED, once, when the server dies mid-call', async () => {
    const stream = await agent().stream('crash');
    const chunks = await chunksOf(stream);
    const error = chunks.find((chunk) => chunk.type === 'tool-error');
    expect(error?.payload).toMatchObject({
      toolName: 'crash',
      error: expect.stringContaining('closed the connection'),
    });
    expect(await serverCalls(dir, 'crash')).toHaveLength(1);
    expect(await attemptsOfTool(stream.runId)).toEqual([1]);
    // The pool replaces the dead connection: the next call works.
    expect((await agent().generate('read it')).text).toBe('"contents of /tmp/a.txt"');
  });

  /** The attempt number of each finished `executeTool` of the run (1: it was not retried). */
  async function attemptsOfTool(runId: string): Promise<number[]> {
    const client = await tollgate.client();
    const events = (await client.workflow.getHandle(runId).fetchHistory()).events!;
    const scheduled = events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'executeTool')
      .map((e) => String(e.eventId));
    return events
      .filter((e) =>
        scheduled.includes(String(e.activityTaskStartedEventAttributes?.scheduledEventId)),
      )
      .map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 0);
  }
});

describe('mcpTools() refusals', () => {
  afterAll(closeMcpConnections);

  it('refuses options without exactly one server', async () => {
    await expect(mcpTools({})).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(mcpTools({ command: 'x', url: 'http://127.0.0.1:1/mcp' })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
  });

  it('names a tool the server does not list', async () => {
    const dir = await stateDir('include');
    await expect(
      mcpTools({ ...stdioServer(dir), include: ['drop_database'] }),
    ).rejects.toMatchObject({
      code: 'MCP_TOOL_NOT_FOUND',
      message: expect.stringContaining('read_file'),
    });
  });

  it('says when the server cannot be reached', async () => {
    await expect(mcpTools({ url: 'http://127.0.0.1:9/mcp' })).rejects.toMatchObject({
      code: 'MCP_CONNECTION_FAILED',
    });
  });
});
