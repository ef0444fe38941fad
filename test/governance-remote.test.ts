import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { Agent, createTool, Tollgate } from '../src/index.js';
import { TollgateClient } from '../src/http-client/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { scriptedModel, type TurnPicker } from '../src/testing/index.js';
import { cli } from './support/cli.js';
import { uniqueQueue, lastToolOutputs, outputsText } from './support/harness.js';

const payThenReport: TurnPicker = (prompt) => {
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: `Paid: ${outputsText(outputs)}` };
  const last = prompt.at(-1);
  const id = /pay ([\w-]+)/.exec(JSON.stringify(last?.content))?.[1] ?? 'x';
  return { toolCalls: [{ toolName: 'pay', args: { id } }] };
};

const CAROL = 'carol-finance-token-0123';
const BOB = 'bob-engineering-token-0123';

describe('governance from other processes: HTTP, the SDK and the CLI', () => {
  const paid: string[] = [];
  const pay = createTool({
    id: 'pay',
    inputSchema: z.object({ id: z.string() }),
    approval: { approvers: ['role:finance'] },
    execute: async (input) => {
      paid.push(input.id);
      return { paid: input.id };
    },
  });
  const agent = new Agent({ id: 'payments', model: scriptedModel(payThenReport), tools: { pay } });
  let tollgate: Tollgate;
  let server: ListeningServer;
  let carol: TollgateClient;
  let bob: TollgateClient;

  beforeAll(async () => {
    tollgate = new Tollgate({
      agents: { agent },
      temporal: { taskQueue: uniqueQueue('governance-remote') },
      policies: { 'payments-need-approval': ({ toolName }) => toolName === 'pay' },
    });
    await tollgate.startWorker();
    server = await createTollgateServer({
      tollgate,
      auth: {
        tokens: [
          { token: CAROL, id: 'carol', roles: ['finance'] },
          { token: BOB, id: 'bob', roles: ['eng'] },
        ],
      },
    }).listen({ port: 0 });
    carol = new TollgateClient({ baseUrl: server.url, token: CAROL });
    bob = new TollgateClient({ baseUrl: server.url, token: BOB });
  });
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
  });

  it('gates by a named policy over HTTP, refuses a non-approver with 403, and records the token identity', async () => {
    const first = await bob
      .getAgent('payments')
      .generate('pay inv-1', { requireToolApproval: 'payments-need-approval' });
    expect(first.finishReason).toBe('suspended');
    await expect(
      bob.getAgent('payments').approveToolCall({ runId: first.runId }),
    ).rejects.toMatchObject({ status: 403, code: 'NOT_AN_APPROVER' });
    expect(paid).not.toContain('inv-1');
    const done = await carol
      .getAgent('payments')
      .approveToolCallGenerate({ runId: first.runId, args: { id: 'inv-1-corrected' } });
    expect(done.text).toContain('inv-1-corrected');
    expect(paid).toEqual(['inv-1-corrected']);
    const audit = await bob.getAgent('payments').getAuditTrail(first.runId);
    expect(audit.find((e) => e.type === 'gate')).toMatchObject({
      gated: true,
      source: 'named:payments-need-approval',
    });
    expect(audit.find((e) => e.type === 'decision')).toMatchObject({
      decision: 'approved',
      channel: 'update',
      decidedBy: { id: 'carol', roles: ['finance'] },
      editedArgs: { id: 'inv-1-corrected' },
    });
  });

  it('prints the audit trail with `tollgate audit`, as a table and as JSON', async () => {
    const first = await carol
      .getAgent('payments')
      .generate('pay inv-2', { requireToolApproval: true });
    await carol
      .getAgent('payments')
      .declineToolCallGenerate({ runId: first.runId, reason: 'Duplicate invoice' });
    const connection = [
      '--address',
      process.env.TEMPORAL_ADDRESS!,
      '--namespace',
      process.env.TEMPORAL_NAMESPACE!,
    ];
    const table = await cli(['audit', first.runId, ...connection]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/declined by carol via update; reason: Duplicate invoice/);
    const json = await cli(['audit', first.runId, '--json', ...connection]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      runId: first.runId,
      entries: expect.arrayContaining([
        expect.objectContaining({ type: 'request', args: { id: 'inv-2' } }),
      ]),
    });
    expect(paid).not.toContain('inv-2');
  });
});
