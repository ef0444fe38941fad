/**
 * The agent directory: workers publish their agents at startWorker(); runs of an agent nobody
 * published are refused before anything starts; the directory is listed (runtime, HTTP, SDK, CLI)
 * from Temporal alone and says when the agent's workers are gone.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Agent, Tollgate, type AgentListing } from '../src/index.js';
import { TollgateClient, TollgateHttpError } from '../src/http-client/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { cli } from './support/cli.js';
import {
  eventually,
  hostAgents,
  recordingTool,
  testAgent,
  uniqueQueue,
} from './support/harness.js';

const TOKEN = 'directory-token-0123456789';

/** The run's workflow is absent: describe() says Temporal never heard of it. */
async function expectNoWorkflow(tollgate: Tollgate, runId: string): Promise<void> {
  const describe = (await tollgate.client()).workflow.getHandle(runId).describe();
  await expect(describe).rejects.toBeInstanceOf(WorkflowNotFoundError);
}

/** The listing once visibility has caught up with `expected` agents. */
function listingOf(tollgate: Tollgate, expected: number): Promise<AgentListing[]> {
  return eventually(async () => {
    const agents = await tollgate.listAgents();
    expect(agents).toHaveLength(expected);
    return agents;
  }, 30_000);
}

describe('the agent directory', () => {
  const lookup = recordingTool('lookup-record');
  const { agent: helper } = testAgent('dir-helper', [], [{ text: 'helped' }]);
  const supervisor = new Agent({
    id: 'dir-supervisor',
    name: 'Directory Supervisor',
    description: 'Answers questions.',
    model: scriptedModel(() => ({ text: 'hello' }), 'dir-supervisor'),
    tools: { 'lookup-record': lookup.tool },
    agents: { helper },
  });
  let tollgate: Tollgate;
  let server: ListeningServer;
  let sdk: TollgateClient;

  beforeAll(async () => {
    tollgate = await hostAgents([supervisor], 'directory');
    server = await createTollgateServer({
      tollgate,
      auth: { tokens: [{ token: TOKEN, id: 'alice' }] },
    }).listen({ port: 0 });
    sdk = new TollgateClient({ baseUrl: server.url, token: TOKEN });
  });
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
  });

  it('refuses a run of an agent no worker published over HTTP: 404 AGENT_NOT_FOUND, no workflow, no hosted agent named', async () => {
    const runId = `ghost-run-${Date.now()}`;
    const response = await fetch(`${server.url}/api/agents/ghost-agent/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: 'hello?', options: { runId } }),
    });
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('AGENT_NOT_FOUND');
    expect(body.error.message).toContain('"ghost-agent"');
    for (const hosted of ['dir-supervisor', 'dir-helper', tollgate.taskQueue]) {
      expect(body.error.message).not.toContain(hosted);
    }
    await expectNoWorkflow(tollgate, runId);

    const viaSdk = await sdk
      .getAgent('ghost-agent')
      .generate('hello?', { runId })
      .catch((error: unknown) => error);
    expect(viaSdk).toBeInstanceOf(TollgateHttpError);
    expect(viaSdk).toMatchObject({ status: 404, code: 'AGENT_NOT_FOUND' });
    await expectNoWorkflow(tollgate, runId);
  });

  it('refuses stream() of an unknown agent in process with AGENT_NOT_FOUND, starting nothing', async () => {
    const runId = `ghost-stream-${Date.now()}`;
    await expect(
      tollgate.getAgent('ghost-agent').stream('hello?', { runId }),
    ).rejects.toMatchObject({ code: 'AGENT_NOT_FOUND' });
    await expectNoWorkflow(tollgate, runId);
    // A published agent, sub-agents included, starts as before.
    expect(await tollgate.getAgent('dir-supervisor').generate('hi')).toMatchObject({
      finishReason: 'stop',
      text: 'hello',
    });
  });

  it('lists the hosted agents, sub-agents included, over HTTP, the SDK and in process', async () => {
    const agents = await listingOf(tollgate, 2);
    expect(agents).toEqual([
      {
        agentId: 'dir-helper',
        name: 'dir-helper',
        tools: [],
        delegations: [],
        subAgents: [],
        taskQueue: tollgate.taskQueue,
        lastPublishedAt: expect.any(String),
        available: true,
      },
      {
        agentId: 'dir-supervisor',
        name: 'Directory Supervisor',
        description: 'Answers questions.',
        tools: ['lookup-record'],
        // The names the model sees for its sub-agents: what a request's activeTools may list.
        delegations: ['agent-helper'],
        subAgents: ['dir-helper'],
        taskQueue: tollgate.taskQueue,
        lastPublishedAt: expect.any(String),
        available: true,
      },
    ]);
    const response = await fetch(`${server.url}/api/agents`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ agents });
    expect(await sdk.listAgents()).toEqual({ agents });
  });
});

describe('the agent directory after its workers are gone', () => {
  const opened: Tollgate[] = [];
  afterAll(async () => {
    for (const tollgate of opened) await tollgate.shutdown();
  });

  it('keeps the agent listed, from a fresh process, as not available; a new worker makes it available again', async () => {
    const queue = uniqueQueue('directory-gone');
    const definition = () => testAgent('dir-gone', [], [{ text: 'back' }]).agent;
    const worker = await hostAgents([definition()], 'directory-gone', queue);
    const publishedAt = (await listingOf(worker, 1))[0]!.lastPublishedAt;
    await worker.shutdown();

    // Another process, hosting nothing, connected after the worker left.
    const fresh = new Tollgate({ temporal: { taskQueue: queue } });
    opened.push(fresh);
    expect(await fresh.listAgents()).toEqual([
      expect.objectContaining({
        agentId: 'dir-gone',
        available: false,
        lastPublishedAt: publishedAt,
      }),
    ]);
    // Runs are still accepted: they wait in Temporal for a worker.
    const waiting = await fresh
      .getAgent('dir-gone')
      .stream('hello', { runId: `gone-${Date.now()}` });
    const client = await fresh.client();
    expect((await client.workflow.getHandle(waiting.runId).describe()).status.name).toBe('RUNNING');

    const again = await hostAgents([definition()], 'directory-gone', queue);
    opened.push(again);
    expect(await waiting.text).toBe('back');
    // The existing entry learns of the new worker from an update its worker applies.
    const listed = await eventually(async () => {
      const [agent] = await fresh.listAgents();
      expect(agent).toMatchObject({ agentId: 'dir-gone', available: true });
      return agent!;
    }, 30_000);
    expect(listed.lastPublishedAt > publishedAt).toBe(true);
  });

  it('forgets a removed agent: not listed, runs refused, until a worker hosting it starts again', async () => {
    const queue = uniqueQueue('directory-remove');
    const worker = await hostAgents(
      [testAgent('dir-removed', [], [{ text: 'hi' }]).agent],
      'r',
      queue,
    );
    await worker.shutdown();
    const admin = new Tollgate({ temporal: { taskQueue: queue } });
    opened.push(admin);
    await listingOf(admin, 1);

    const removed = await cli(['agents', 'remove', 'dir-removed', '--task-queue', queue, '--json']);
    expect(removed).toMatchObject({ code: 0 });
    expect(JSON.parse(removed.stdout)).toEqual({ removed: 'dir-removed', taskQueue: queue });
    await listingOf(admin, 0);
    const runId = `removed-${Date.now()}`;
    await expect(admin.getAgent('dir-removed').stream('hi', { runId })).rejects.toMatchObject({
      code: 'AGENT_NOT_FOUND',
    });
    await expectNoWorkflow(admin, runId);
    await expect(admin.removeAgent('dir-removed')).rejects.toMatchObject({
      code: 'AGENT_NOT_FOUND',
    });

    opened.push(
      await hostAgents([testAgent('dir-removed', [], [{ text: 'hi' }]).agent], 'r', queue),
    );
    const listed = await eventually(async () => {
      const result = await cli(['agents', '--task-queue', queue, '--json']);
      const document = JSON.parse(result.stdout) as { agents: AgentListing[] };
      expect(document.agents).toHaveLength(1);
      return document;
    }, 30_000);
    expect(listed).toEqual({
      taskQueue: queue,
      agents: [expect.objectContaining({ agentId: 'dir-removed', available: true })],
    });
  });
});
