import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Agent, type Tollgate } from '../src/index.js';
import { threadWorkflowId } from '../src/common/wire.js';
import { TollgateClient, TollgateHttpError } from '../src/http-client/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { scriptedModel } from '../src/testing/index.js';
import {
  eventually,
  deleteByPrompt,
  hostAgents,
  lastToolOutputs,
  recordingTool,
  testAgent,
  uniqueId,
} from './support/harness.js';

const AGENT = 'scope-agent';
const OTHER = 'scope-other-agent';

const TOKENS = {
  operator: 'scope-operator-token-0123456789',
  alice: 'scope-alice-token-0123456789',
  bob: 'scope-bob-token-0123456789',
  reader: 'scope-reader-token-0123456789',
  agentOnly: 'scope-agent-only-token-0123456789',
  pattern: 'scope-pattern-token-0123456789',
  acme: 'scope-acme-token-0123456789',
};

interface Answer {
  status: number;
  json: { error?: { code: string; message: string } } & Record<string, unknown>;
  text: string;
}

describe('token scopes on the HTTP API', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent(AGENT, [deleteRecord.tool], deleteByPrompt);
  const { agent: other } = testAgent(OTHER, [deleteRecord.tool], deleteByPrompt);
  const { agent: sub } = testAgent('scope-sub-agent', [deleteRecord.tool], deleteByPrompt);
  /** Hands "delegate <id>" to its sub-agent as "delete <id>". */
  const boss = new Agent({
    id: 'scope-boss',
    model: scriptedModel((prompt) => {
      if (lastToolOutputs(prompt)) return { text: 'Done.' };
      const id = /delegate ([\w-]+)/.exec(JSON.stringify(prompt.at(-1)?.content))?.[1];
      return { toolCalls: [{ toolName: 'agent-sub', args: { message: `delete ${id}` } }] };
    }),
    agents: { sub },
  });
  let tollgate: Tollgate;
  let server: ListeningServer;

  beforeAll(async () => {
    tollgate = await hostAgents([agent, other, boss], 'scopes');
    server = await createTollgateServer({
      tollgate,
      auth: {
        tokens: [
          { token: TOKENS.operator, id: 'ops' },
          { token: TOKENS.alice, id: 'alice', scopes: { resources: ['alice'] } },
          { token: TOKENS.bob, id: 'bob', scopes: { resources: ['bob'] } },
          { token: TOKENS.reader, id: 'auditor', scopes: { actions: ['read'] } },
          { token: TOKENS.agentOnly, id: 'agent-team', scopes: { agents: [AGENT] } },
          { token: TOKENS.pattern, id: 'other-team', scopes: { agents: ['scope-other-*'] } },
          { token: TOKENS.acme, id: 'acme-admin', scopes: { resources: ['acme/*'] } },
        ],
      },
      logError: (error) => console.error(error),
    }).listen({ port: 0 });
  });
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
  });

  async function call(
    token: string,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<Answer> {
    const response = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let json: Answer['json'] = {};
    try {
      json = JSON.parse(text) as Answer['json'];
    } catch {
      // SSE
    }
    return { status: response.status, json, text };
  }
  const at = (agentId: string, route: string) => `/api/agents/${agentId}${route}`;
  const executionsOf = (id: string) =>
    deleteRecord.executions.filter((e) => (e.input as { id: string }).id === id);

  /** Starts a run that waits for approval of `delete <record>`, as the operator. */
  async function waitingRun(record: string, memory?: { thread: string; resource: string }) {
    const answer = await call(TOKENS.operator, 'POST', at(AGENT, '/generate'), {
      messages: `delete ${record}`,
      ...(memory ? { options: { memory } } : {}),
    });
    expect(answer.json).toMatchObject({ finishReason: 'suspended' });
    return answer.json.runId as string;
  }

  async function pendingOf(runId: string): Promise<unknown[]> {
    const answer = await call(
      TOKENS.operator,
      'GET',
      at(AGENT, `/pending-tool-calls?runId=${runId}`),
    );
    expect(answer.status).toBe(200);
    return answer.json.toolCalls as unknown[];
  }

  it("refuses Bob's token on Alice's run with 404, leaving the run waiting and the tool unrun", async () => {
    const record = uniqueId('rec-alice');
    const runId = await waitingRun(record, { thread: uniqueId('t'), resource: 'alice' });
    const decisions: Array<[string, unknown]> = [
      ['/approve-tool-call-generate', { runId }],
      ['/approve-tool-call', { runId }],
      ['/decline-tool-call-generate', { runId }],
      ['/resume-generate', { runId, resumeData: {} }],
    ];
    for (const [route, body] of decisions) {
      const answer = await call(TOKENS.bob, 'POST', at(AGENT, route), body);
      expect(answer.status).toBe(404);
      expect(answer.json.error).toEqual({
        code: 'RUN_NOT_FOUND',
        message: `No run with id "${runId}" exists for agent "${AGENT}".`,
      });
    }
    for (const route of [`/audit?runId=${runId}`, `/pending-tool-calls?runId=${runId}`]) {
      expect((await call(TOKENS.bob, 'GET', at(AGENT, route))).status).toBe(404);
    }
    expect((await call(TOKENS.bob, 'POST', at(AGENT, '/observe'), { runId })).status).toBe(404);
    // Bob's listings do not show it; Alice's do.
    const bobs = await call(TOKENS.bob, 'GET', `/api/approvals?agentId=${AGENT}&perPage=1000`);
    expect(JSON.stringify(bobs.json)).not.toContain(runId);
    await eventually(async () => {
      const alices = await call(TOKENS.alice, 'GET', at(AGENT, '/suspended-runs?perPage=1000'));
      expect(JSON.stringify(alices.json)).toContain(runId);
    });
    // Naming Alice's resource as a filter is refused outright.
    const filter = await call(TOKENS.bob, 'GET', '/api/approvals?resourceId=alice');
    expect(filter.json.error?.code).toBe('FORBIDDEN');

    expect(await pendingOf(runId)).toHaveLength(1);
    const audit = await call(TOKENS.alice, 'GET', at(AGENT, `/audit?runId=${runId}`));
    const entries = audit.json.entries as Array<{ type: string }>;
    expect(entries.some((e) => /decision|refus/.test(e.type))).toBe(false);
    expect(executionsOf(record)).toHaveLength(0);

    // The owner may decide: the call runs once.
    const approved = await call(TOKENS.alice, 'POST', at(AGENT, '/approve-tool-call-generate'), {
      runId,
    });
    expect(approved.status).toBe(200);
    expect(executionsOf(record)).toHaveLength(1);
  });

  it('keeps runs without a resource from resource-limited tokens', async () => {
    const runId = await waitingRun(uniqueId('rec-none'));
    const observed = await call(TOKENS.bob, 'POST', at(AGENT, '/observe'), { runId });
    expect(observed.json.error?.code).toBe('RUN_NOT_FOUND');
    const started = await call(TOKENS.bob, 'POST', at(AGENT, '/generate'), { messages: 'hi' });
    expect(started.status).toBe(403);
    expect(started.json.error?.code).toBe('FORBIDDEN');
    await call(TOKENS.operator, 'POST', at(AGENT, '/decline-tool-call-generate'), { runId });
  });

  it("answers 404 for a run reached through another agent's path, naming nothing the caller did not send", async () => {
    const record = uniqueId('rec-path');
    const runId = await waitingRun(record);
    for (const route of [`/audit?runId=${runId}`, `/pending-tool-calls?runId=${runId}`]) {
      const answer = await call(TOKENS.operator, 'GET', at(OTHER, route));
      expect(answer.status).toBe(404);
      expect(answer.json.error?.code).toBe('RUN_NOT_FOUND');
    }
    const observed = await call(TOKENS.operator, 'POST', at(OTHER, '/observe'), { runId });
    expect(observed.status).toBe(404);
    const approved = await call(TOKENS.operator, 'POST', at(OTHER, '/approve-tool-call-generate'), {
      runId,
    });
    expect(approved.status).toBe(404);
    expect(approved.json.error).toEqual({
      code: 'RUN_NOT_FOUND',
      message: `No run with id "${runId}" exists for agent "${OTHER}".`,
    });
    expect(await pendingOf(runId)).toHaveLength(1);
    expect(executionsOf(record)).toHaveLength(0);
    await call(TOKENS.operator, 'POST', at(AGENT, '/decline-tool-call-generate'), { runId });
  });

  it('lists in /api/approvals only the agents a token may use, with totals and paging to match', async () => {
    const thread = uniqueId('t-list');
    const memory = { thread, resource: 'acme/team' };
    await waitingRun(uniqueId('rec-list'), memory);
    for (let i = 0; i < 2; i++) {
      await call(TOKENS.operator, 'POST', at(OTHER, '/generate'), {
        messages: `delete ${uniqueId('rec-list-other')}`,
        options: { memory },
      });
    }
    const list = (token: string, query = '') =>
      call(token, 'GET', `/api/approvals?threadId=${thread}${query}`);
    await eventually(async () => expect((await list(TOKENS.operator)).json.total).toBe(3));
    const mine = await list(TOKENS.agentOnly);
    expect(mine.json.total).toBe(1);
    expect((mine.json.approvals as Array<{ agentId: string }>).map((a) => a.agentId)).toEqual([
      AGENT,
    ]);
    const byPattern = await list(TOKENS.pattern, '&perPage=1&page=1');
    expect(byPattern.json.total).toBe(2);
    expect((byPattern.json.approvals as Array<{ agentId: string }>).map((a) => a.agentId)).toEqual([
      OTHER,
    ]);
    expect((await list(TOKENS.pattern, '&perPage=1&page=2')).json.approvals).toEqual([]);
    expect((await list(TOKENS.acme)).json.total).toBe(3);
    const noTenant = await list(TOKENS.bob);
    expect(noTenant.json).toEqual({ approvals: [], total: 0 });
    const refused = await list(TOKENS.agentOnly, `&agentId=${OTHER}`);
    expect(refused.status).toBe(403);
    const suspended = await call(
      TOKENS.agentOnly,
      'GET',
      at(OTHER, `/suspended-runs?threadId=${thread}`),
    );
    expect(suspended.status).toBe(403);
  });

  it("refuses a start into another tenant's thread before anything starts or reads the thread", async () => {
    const thread = uniqueId('t-private');
    const said = await call(TOKENS.alice, 'POST', at(AGENT, '/generate'), {
      messages: 'hello',
      options: { memory: { thread, resource: 'alice' } },
    });
    expect(said.json).toMatchObject({ finishReason: 'stop' });
    const client = await tollgate.client();
    const threadHandle = client.workflow.getHandle(threadWorkflowId(AGENT, 'alice', thread));
    const before = (await threadHandle.describe()).historyLength;

    const runId = uniqueId('bob-run');
    for (const route of ['/generate', '/stream']) {
      const answer = await call(TOKENS.bob, 'POST', at(AGENT, route), {
        messages: 'hello',
        options: { memory: { thread, resource: 'alice' }, runId },
      });
      expect(answer.status).toBe(403);
      expect(answer.json.error?.code).toBe('FORBIDDEN');
    }
    await expect(client.workflow.getHandle(runId).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
    expect((await threadHandle.describe()).historyLength).toBe(before);
  });

  it('lets a read-only token read but not decide, and leaves the run as it was', async () => {
    const record = uniqueId('rec-read');
    const runId = await waitingRun(record);
    expect(
      (await call(TOKENS.reader, 'GET', at(AGENT, `/pending-tool-calls?runId=${runId}`))).status,
    ).toBe(200);
    for (const route of ['/approve-tool-call-generate', '/decline-tool-call-generate']) {
      const answer = await call(TOKENS.reader, 'POST', at(AGENT, route), { runId });
      expect(answer.status).toBe(403);
      expect(answer.json.error?.code).toBe('FORBIDDEN');
    }
    const started = await call(TOKENS.reader, 'POST', at(AGENT, '/generate'), { messages: 'hi' });
    expect(started.status).toBe(403);
    expect(await pendingOf(runId)).toHaveLength(1);
    expect(executionsOf(record)).toHaveLength(0);
    // The operator token (no scopes) still does everything.
    const approved = await call(TOKENS.operator, 'POST', at(AGENT, '/approve-tool-call-generate'), {
      runId,
    });
    expect(approved.json).toMatchObject({ finishReason: 'stop' });
    expect(executionsOf(record)).toHaveLength(1);
  });

  it('holds sendToolApproval to the token resource', async () => {
    const thread = uniqueId('t-send');
    const record = uniqueId('rec-send');
    await waitingRun(record, { thread, resource: 'alice' });
    const refused = await call(TOKENS.bob, 'POST', at(AGENT, '/send-tool-approval'), {
      threadId: thread,
      resourceId: 'alice',
      approved: true,
    });
    expect(refused.json.error?.code).toBe('FORBIDDEN');
    expect(executionsOf(record)).toHaveLength(0);
    const sent = await eventually(async () => {
      const answer = await call(TOKENS.alice, 'POST', at(AGENT, '/send-tool-approval'), {
        threadId: thread,
        resourceId: 'alice',
        approved: true,
      });
      expect(answer.status).toBe(200);
      return answer;
    });
    expect(sent.json).toMatchObject({ accepted: true });
    await eventually(async () => expect(executionsOf(record)).toHaveLength(1));
  });

  it("gives a sub-agent's run the resource of the run at the top", async () => {
    const record = uniqueId('rec-sub');
    const top = await call(TOKENS.alice, 'POST', at('scope-boss', '/generate'), {
      messages: `delegate ${record}`,
      options: { memory: { thread: uniqueId('t'), resource: 'alice' } },
    });
    expect(top.json).toMatchObject({ finishReason: 'suspended' });
    const client = await tollgate.client();
    const children = await eventually(async () => {
      const found: string[] = [];
      const query = `ParentWorkflowId = '${top.json.runId as string}'`;
      for await (const run of client.workflow.list({ query })) found.push(run.workflowId);
      expect(found).toHaveLength(1);
      return found;
    });
    const path = at('scope-sub-agent', `/pending-tool-calls?runId=${children[0]!}`);
    const alice = await call(TOKENS.alice, 'GET', path);
    expect(alice.status).toBe(200);
    expect(alice.json.toolCalls).toHaveLength(1);
    expect((await call(TOKENS.bob, 'GET', path)).status).toBe(404);
    const approved = await call(
      TOKENS.alice,
      'POST',
      at('scope-boss', '/approve-tool-call-generate'),
      {
        runId: top.json.runId,
      },
    );
    expect(approved.json).toMatchObject({ finishReason: 'stop' });
    expect(executionsOf(record)).toHaveLength(1);
  });

  it('gives the same answers through the HTTP SDK and a scoped in-process handle', async () => {
    const record = uniqueId('rec-sdk');
    const runId = await waitingRun(record, { thread: uniqueId('t'), resource: 'alice' });
    const bob = new TollgateClient({ baseUrl: server.url, token: TOKENS.bob }).getAgent(AGENT);
    const remote = await bob.approveToolCallGenerate({ runId }).catch((e: unknown) => e);
    expect(remote).toBeInstanceOf(TollgateHttpError);
    expect(remote).toMatchObject({ status: 404, code: 'RUN_NOT_FOUND' });
    const local = tollgate.getAgent(AGENT, { scope: { resources: ['bob'] } });
    await expect(local.approveToolCallGenerate({ runId })).rejects.toMatchObject({
      code: 'RUN_NOT_FOUND',
    });
    await expect(local.getAuditTrail(runId)).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    expect(() => tollgate.getAgent(AGENT, { scope: { actions: ['fly' as 'read'] } })).toThrow(
      /getAgent\(\) scope.actions holds "fly"/,
    );
    expect(executionsOf(record)).toHaveLength(0);
    await tollgate.getAgent(AGENT).declineToolCallGenerate({ runId });
  });
});
