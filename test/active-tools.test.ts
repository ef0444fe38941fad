import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { Agent, createTool, Tollgate, type Chunk } from '../src/index.js';
import type { RunInput } from '../src/common/run-types.js';
import { TollgateClient } from '../src/http-client/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { cli } from './support/cli.js';
import { lastToolOutputs, outputsText, uniqueId, uniqueQueue } from './support/harness.js';

const TOKEN = 'active-tools-token-0123456789';

/** Calls `lookup` and `delete-record` together, whatever it is offered; then reports. */
const model = scriptedModel((prompt) => {
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: `Got: ${outputsText(outputs)}` };
  return {
    toolCalls: [
      { toolName: 'lookup', args: { id: 'rec-1' } },
      { toolName: 'delete-record', args: { id: 'rec-1' } },
    ],
  };
});

describe('a request narrows the tools of its run (activeTools)', () => {
  const ran: string[] = [];
  let policyCalls = 0;
  const lookup = createTool({
    id: 'lookup',
    inputSchema: z.object({ id: z.string() }),
    execute: async ({ id }) => {
      ran.push(`lookup ${id}`);
      return { found: id };
    },
  });
  const deleteRecord = createTool({
    id: 'delete-record',
    inputSchema: z.object({ id: z.string() }),
    requireApproval: () => {
      policyCalls++;
      return false;
    },
    execute: async ({ id }) => {
      ran.push(`delete ${id}`);
      return { deleted: id };
    },
  });
  const agent = new Agent({
    id: 'narrowed-agent',
    model,
    tools: { lookup, 'delete-record': deleteRecord },
  });
  let tollgate: Tollgate;
  let client: Client;
  let server: ListeningServer;
  let remote: TollgateClient;

  async function inputOf(runId: string): Promise<RunInput> {
    const history = await client.workflow.getHandle(runId).fetchHistory();
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
    return JSON.parse(new TextDecoder().decode(started.input!.payloads![0]!.data!)) as RunInput;
  }

  beforeAll(async () => {
    tollgate = new Tollgate({
      agents: { agent },
      temporal: { taskQueue: uniqueQueue('active-tools') },
    });
    await tollgate.startWorker();
    client = await tollgate.client();
    server = await createTollgateServer({
      tollgate,
      auth: { tokens: [{ token: TOKEN, id: 'ops', roles: ['ops'] }] },
      logError: () => undefined,
    }).listen({ port: 0 });
    remote = new TollgateClient({ baseUrl: server.url, token: TOKEN });
  });
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
  });

  it('offers the model only the listed tools and refuses a call of another before any policy, running it zero times', async () => {
    const offeredBefore = model.offeredTools.length;
    ran.length = 0;
    policyCalls = 0;
    const stream = await tollgate
      .getAgent('narrowed-agent')
      .stream('look up rec-1', { activeTools: ['lookup'] });
    const chunks: Chunk[] = [];
    for await (const chunk of stream.fullStream) chunks.push(chunk);
    expect(await stream.finishReason).toBe('stop');
    expect(model.offeredTools.slice(offeredBefore)).toEqual([['lookup'], ['lookup']]);
    expect(ran).toEqual(['lookup rec-1']);
    expect(policyCalls).toBe(0);
    const refused = chunks.find((chunk) => chunk.type === 'tool-error');
    expect(refused?.payload).toMatchObject({
      toolName: 'delete-record',
      code: 'TOOL_NOT_ALLOWED',
      error: expect.stringContaining('activeTools: lookup'),
    });
    expect(await inputOf(stream.runId)).toMatchObject({ activeTools: ['lookup'] });
    const audit = await tollgate.getAgent('narrowed-agent').getAuditTrail(stream.runId);
    expect(audit[0]).toMatchObject({ type: 'active-tools', tools: ['lookup'] });
    expect(audit.filter((entry) => entry.type === 'gate')).toEqual([
      expect.objectContaining({ toolName: 'lookup', gated: false }),
      expect.objectContaining({
        toolName: 'delete-record',
        gated: false,
        source: 'active-tools',
        notActive: true,
      }),
    ]);
    const table = await cli([
      'audit',
      stream.runId,
      '--address',
      process.env.TEMPORAL_ADDRESS!,
      '--namespace',
      process.env.TEMPORAL_NAMESPACE!,
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/active-tools .* the run may use only: lookup/);
    expect(table.stdout).toMatch(/refused: not among the run's activeTools/);
  }, 60_000);

  it('leaves a run without activeTools as it was: every tool offered, the policy asked', async () => {
    const offeredBefore = model.offeredTools.length;
    ran.length = 0;
    policyCalls = 0;
    const output = await tollgate.getAgent('narrowed-agent').generate('look up rec-2');
    expect(output.finishReason).toBe('stop');
    expect(model.offeredTools[offeredBefore]).toEqual(['lookup', 'delete-record']);
    expect(ran.sort()).toEqual(['delete rec-1', 'lookup rec-1']);
    expect(policyCalls).toBe(1);
  }, 60_000);

  it('refuses a name the agent does not have at start, naming it and the available tools, and starts nothing', async () => {
    const runId = uniqueId('narrowed-unknown');
    await expect(
      tollgate
        .getAgent('narrowed-agent')
        .generate('look up rec-3', { runId, activeTools: ['lookup', 'drop-table'] }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message:
        'activeTools names "drop-table", which agent "narrowed-agent" does not have; available tools: lookup, delete-record.',
    });
    await expect(client.workflow.getHandle(runId).describe()).rejects.toThrow();
    await expect(
      tollgate.getAgent('narrowed-agent').generate('x', { activeTools: 'lookup' as never }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  }, 60_000);

  it('works the same over HTTP: narrowed, refused, recorded; unknown names are 422', async () => {
    ran.length = 0;
    policyCalls = 0;
    const output = await remote
      .getAgent('narrowed-agent')
      .generate('look up rec-4', { activeTools: ['lookup'] });
    expect(output.finishReason).toBe('stop');
    expect(ran).toEqual(['lookup rec-1']);
    expect(policyCalls).toBe(0);
    const audit = await remote.getAgent('narrowed-agent').getAuditTrail(output.runId);
    expect(audit[0]).toMatchObject({ type: 'active-tools', tools: ['lookup'] });
    expect(await inputOf(output.runId)).toMatchObject({ activeTools: ['lookup'] });
    await expect(
      remote.getAgent('narrowed-agent').generate('x', { activeTools: ['drop-table'] }),
    ).rejects.toMatchObject({ status: 422, code: 'INVALID_OPTIONS' });
    await expect(
      remote.getAgent('narrowed-agent').generate('x', { activeTools: [''] }),
    ).rejects.toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(ran).toEqual(['lookup rec-1']);
  }, 60_000);
});
