import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import { Agent, createTool, Tollgate } from '../src/index.js';
import type { ScopeAction } from '../src/common/scope.js';
import { TollgateClient } from '../src/http-client/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { scriptedModel } from '../src/testing/index.js';
import {
  callNamed,
  eventually,
  gatedRecordingTool,
  uniqueId,
  uniqueQueue,
} from './support/harness.js';

const AGENT = 'tight-ops';

const DECIDER = ['start', 'decide', 'read'];
/** Every token may start runs; only `root` may loosen (`admin`). */
const TOKENS = {
  mallory: {
    token: 'tight-mallory-token-0123456789',
    id: 'mallory',
    roles: [],
    actions: ['start'],
  },
  eve: { token: 'tight-eve-token-0123456789', id: 'eve', roles: [], actions: DECIDER },
  bob: { token: 'tight-bob-token-0123456789', id: 'bob', roles: ['ops'], actions: DECIDER },
  carol: { token: 'tight-carol-token-0123456789', id: 'carol', roles: ['ops'], actions: DECIDER },
  dave: { token: 'tight-dave-token-0123456789', id: 'dave', roles: ['ops'], actions: DECIDER },
  root: { token: 'tight-root-token-0123456789', id: 'root', roles: [], actions: ['admin'] },
};
type Who = keyof typeof TOKENS;

describe('a request only tightens the agent’s gates (issue 24, defects 6 and 7)', () => {
  const executed: Array<{ tool: string; id: string }> = [];
  // Gated by the agent's default only: a request that could drop that default could run it.
  const deleteRecord = createTool({
    id: 'delete-record',
    inputSchema: z.object({ id: z.string() }),
    execute: async (input) => {
      executed.push({ tool: 'delete-record', id: input.id });
      return { done: input.id };
    },
  });
  const tools = Object.fromEntries(
    [
      deleteRecord,
      gatedRecordingTool('purge', executed),
      // Approves itself after an hour: a request's earlier deadline must not approve.
      gatedRecordingTool('patch-prod', executed, { timeout: '1 hour', onTimeout: 'approve' }),
      gatedRecordingTool('deploy', executed, { separateRequester: true }),
    ].map((tool) => [tool.id, tool]),
  );
  const agent = new Agent({
    id: AGENT,
    model: scriptedModel(callNamed),
    tools,
    defaultOptions: { requireToolApproval: true, approval: { approvers: ['role:ops'] } },
  });
  let tollgate: Tollgate;
  let server: ListeningServer;

  beforeAll(async () => {
    tollgate = new Tollgate({
      agents: { agent },
      temporal: { taskQueue: uniqueQueue('tightening') },
      policies: { 'purges-only': ({ toolName }) => toolName === 'purge' },
    });
    await tollgate.startWorker();
    server = await createTollgateServer({
      tollgate,
      auth: {
        tokens: Object.values(TOKENS).map(({ token, id, roles, actions }) => ({
          token,
          id,
          roles,
          scopes: { actions: actions as ScopeAction[] },
        })),
      },
      logError: (error) => console.error(error),
    }).listen({ port: 0 });
  });
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
  });

  const as = (who: Who) =>
    new TollgateClient({ baseUrl: server.url, token: TOKENS[who].token }).getAgent(AGENT);
  const ran = (tool: string, id: string) =>
    executed.filter((e) => e.tool === tool && e.id === id).length;
  const gateOf = async (runId: string) =>
    (await tollgate.getAgent(AGENT).getAuditTrail(runId)).find((e) => e.type === 'gate');
  async function neverStarted(runId: string): Promise<void> {
    const handle = (await tollgate.client()).workflow.getHandle(runId);
    await expect(handle.describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  }

  it("refuses onTimeout 'approve' from a start-only token before anything starts; an admin's override applies and is audited", async () => {
    const runId = uniqueId('auto');
    const loosen = { approval: { timeout: 1000, onTimeout: 'approve' as const }, runId };
    await expect(as('mallory').generate('purge p1', loosen)).rejects.toMatchObject({
      status: 403,
      code: 'APPROVAL_LOOSENING_FORBIDDEN',
      message: expect.stringContaining('approval.onTimeout'),
    });
    await neverStarted(runId);
    // An admin must still say it means to replace the agent's rules.
    await expect(as('root').generate('purge p1', loosen)).rejects.toMatchObject({
      status: 422,
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('approvalOverride'),
    });
    await neverStarted(runId);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(ran('purge', 'p1')).toBe(0);

    const allowed = await as('root').generate('purge p2', { ...loosen, approvalOverride: true });
    expect(allowed.finishReason).toBe('suspended');
    await eventually(async () => expect(ran('purge', 'p2')).toBe(1));
    expect(await gateOf(allowed.runId)).toMatchObject({
      gated: true,
      override: { fields: ['approval.timeout', 'approval.onTimeout'], by: 'root' },
    });
  });

  it("refuses requireToolApproval: false from a start-only token; an admin's override drops the agent's gate but never a tool's own", async () => {
    const runId = uniqueId('ungated');
    await expect(
      as('mallory').generate('delete-record d1', { requireToolApproval: false, runId }),
    ).rejects.toMatchObject({
      status: 403,
      code: 'APPROVAL_LOOSENING_FORBIDDEN',
      message: expect.stringContaining('requireToolApproval'),
    });
    await neverStarted(runId);
    expect(ran('delete-record', 'd1')).toBe(0);

    const override = { requireToolApproval: false, approvalOverride: true };
    const ungated = await as('root').generate('delete-record d2', override);
    expect(ungated.finishReason).toBe('stop');
    expect(ran('delete-record', 'd2')).toBe(1);
    expect(await gateOf(ungated.runId)).toMatchObject({
      gated: false,
      source: 'request',
      override: { fields: ['requireToolApproval'], by: 'root' },
    });
    const toolGate = await as('root').generate('purge p3', override);
    expect(toolGate.finishReason).toBe('suspended');
    expect(await gateOf(toolGate.runId)).toMatchObject({ gated: true, source: 'tool' });
    expect(ran('purge', 'p3')).toBe(0);
  });

  it("adds a request's policy to the agent's default gate instead of replacing it", async () => {
    // The named policy gates purges only; the agent's default gates every call.
    const run = await as('eve').generate('delete-record d3', {
      requireToolApproval: 'purges-only',
    });
    expect(run.finishReason).toBe('suspended');
    expect(await gateOf(run.runId)).toMatchObject({ gated: true, source: 'agent' });
    expect(ran('delete-record', 'd3')).toBe(0);
  });

  it("narrows the agent's approvers with a request's instead of replacing them; only an admin may replace them", async () => {
    const narrowed = await as('eve').generate('purge p4', { approval: { approvers: ['eve'] } });
    expect(narrowed.finishReason).toBe('suspended');
    await expect(
      as('eve').approveToolCallGenerate({ runId: narrowed.runId }),
    ).rejects.toMatchObject({ status: 403, code: 'NOT_AN_APPROVER' });
    expect(ran('purge', 'p4')).toBe(0);

    const runId = uniqueId('replace');
    const replace = { approval: { approvers: ['eve'] }, approvalOverride: true, runId };
    await expect(as('eve').generate('purge p5', replace)).rejects.toMatchObject({
      status: 403,
      code: 'APPROVAL_LOOSENING_FORBIDDEN',
    });
    await neverStarted(runId);

    const replaced = await as('root').generate('purge p5', replace);
    expect(await gateOf(replaced.runId)).toMatchObject({
      override: { fields: ['approval.approvers'], by: 'root' },
    });
    const done = await as('eve').approveToolCallGenerate({ runId: replaced.runId });
    expect(done.finishReason).toBe('stop');
    expect(ran('purge', 'p5')).toBe(1);
  });

  it('lets only a decider in both lists approve when a request adds approvers', async () => {
    const run = await as('bob').generate('purge p6', { approval: { approvers: ['carol', 'eve'] } });
    expect(run.finishReason).toBe('suspended');
    const [pending] = await tollgate.getAgent(AGENT).pendingToolCalls(run.runId);
    expect(pending).toMatchObject({ approvers: ['role:ops'], alsoApprovers: ['carol', 'eve'] });
    for (const who of ['dave', 'eve'] as const) {
      await expect(as(who).approveToolCallGenerate({ runId: run.runId })).rejects.toMatchObject({
        status: 403,
        code: 'NOT_AN_APPROVER',
      });
    }
    expect(ran('purge', 'p6')).toBe(0);
    const done = await as('carol').approveToolCallGenerate({ runId: run.runId });
    expect(done.finishReason).toBe('stop');
    expect(ran('purge', 'p6')).toBe(1);
  });

  it("expires a call at a request's shorter deadline as declined, though the tool's own deadline approves", async () => {
    const run = await as('mallory').generate('patch-prod x1', { approval: { timeout: 1000 } });
    expect(run.finishReason).toBe('suspended');
    const result = await (await tollgate.client()).workflow.getHandle(run.runId).result();
    expect(result).toMatchObject({ text: expect.stringContaining('expired') });
    expect(ran('patch-prod', 'x1')).toBe(0);
    const audit = await tollgate.getAgent(AGENT).getAuditTrail(run.runId);
    expect(audit.find((e) => e.type === 'expiry')).toMatchObject({ onTimeout: 'decline' });
  });

  it('takes the requester of an HTTP run from the token: bob cannot approve his own call with separateRequester', async () => {
    const run = await as('bob').generate('deploy v1');
    expect(run.finishReason).toBe('suspended');
    await expect(as('bob').approveToolCallGenerate({ runId: run.runId })).rejects.toMatchObject({
      status: 403,
      code: 'REQUESTER_CANNOT_APPROVE',
    });
    expect(ran('deploy', 'v1')).toBe(0);
    const done = await as('dave').approveToolCallGenerate({ runId: run.runId });
    expect(done.finishReason).toBe('stop');
    expect(ran('deploy', 'v1')).toBe(1);
  });

  it('refuses a body requester other than the token unless the token is an admin', async () => {
    const runId = uniqueId('as-dave');
    await expect(
      as('bob').generate('deploy v2', { requestContext: { requester: 'dave' }, runId }),
    ).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
    await neverStarted(runId);
    const forDave = await as('root').generate('deploy v3', {
      requestContext: { requester: 'dave' },
    });
    await expect(
      as('dave').approveToolCallGenerate({ runId: forDave.runId }),
    ).rejects.toMatchObject({ status: 403, code: 'REQUESTER_CANNOT_APPROVE' });
    await as('bob').approveToolCallGenerate({ runId: forDave.runId });
    expect(ran('deploy', 'v2') + ran('deploy', 'v3')).toBe(1);
  });
});
