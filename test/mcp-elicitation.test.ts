import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tollgate } from '../src/index.js';
import { TollgateClient } from '../src/http-client/index.js';
import { closeMcpConnections, elicitationReply, mcpTools } from '../src/mcp/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { cli } from './support/cli.js';
import { hostAgents, testAgent } from './support/harness.js';
import { callByPrompt, serverCalls, stateDir, stdioServer } from './support/mcp-fixtures.js';
import { MEMO_SCHEMA, TRANSFER_QUESTION, TRANSFER_SCHEMA } from './support/mcp-test-server.js';

const TOKEN = 'mcp-elicitation-token-0123';

describe('declining and cancelling an MCP elicitation (docs/mcp.md "Elicitation")', () => {
  let tollgate: Tollgate;
  let server: ListeningServer;
  let dir: string;

  beforeAll(async () => {
    dir = await stateDir('elicitation');
    const tools = await mcpTools({ name: 'bank', ...stdioServer(dir), include: ['transfer'] });
    tollgate = await hostAgents(
      [testAgent('mcp-elicit', Object.values(tools), callByPrompt).agent],
      'mcp-elicit',
    );
    server = await createTollgateServer({
      tollgate,
      auth: { tokens: [{ token: TOKEN, id: 'ops-user', roles: ['ops'] }] },
    }).listen({ port: 0 });
  });
  afterAll(async () => {
    await server.close();
    await tollgate.shutdown();
    await closeMcpConnections();
  });

  const agent = () => tollgate.getAgent('mcp-elicit');
  /** What the server's tool saw of the user after `from` lines: answers, refusals, results. */
  const seenSince = async (from: number) =>
    (await serverCalls(dir, 'transfer'))
      .slice(from)
      .filter((line) => line.event !== 'started')
      .map((line) => ({ event: line.event, answer: line.answer }));
  const linesNow = async () => (await serverCalls(dir, 'transfer')).length;

  it('sends decline to the server through the SDK, and the tool ends as the server says', async () => {
    const from = await linesNow();
    const parked = await agent().generate('transfer 5');
    expect(parked.finishReason).toBe('suspended');
    const [pending] = await agent().pendingToolCalls(parked.runId);
    // The schema offers the server's form or a decline/cancel reply; the payload keeps the form.
    expect(JSON.parse(pending!.resumeSchema)).toMatchObject({
      anyOf: [TRANSFER_SCHEMA, { required: ['tollgate/elicitation'] }],
    });
    expect(pending!.suspendPayload).toMatchObject({ requestedSchema: TRANSFER_SCHEMA });

    const done = await agent().resumeGenerate(elicitationReply('decline'), {
      runId: parked.runId,
    });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toBe('"transfer declined by the user"');
    // The parking attempt's own cancel is not the user's: the server saw one decline, no answer.
    expect(await seenSince(from)).toEqual([{ event: 'refused', answer: 'decline' }]);
    expect((await serverCalls(dir, 'transfer')).slice(from).map((l) => l.event)).toEqual([
      'started',
      'started',
      'refused',
    ]);
  });

  it('refuses a reply that is neither the form nor decline/cancel, without a history event', async () => {
    const parked = await agent().generate('transfer 6');
    const handle = (await tollgate.client()).workflow.getHandle(parked.runId);
    const events = (await handle.fetchHistory()).events!.length;
    await expect(
      agent().resumeGenerate({ 'tollgate/elicitation': 'later' }, { runId: parked.runId }),
    ).rejects.toMatchObject({ code: 'INVALID_RESUME_DATA' });
    // accept without the form's data answers URL-mode questions only.
    await expect(
      agent().resumeGenerate(elicitationReply('accept'), { runId: parked.runId }),
    ).rejects.toMatchObject({ code: 'INVALID_RESUME_DATA' });
    expect((await handle.fetchHistory()).events!.length).toBe(events);
    await expect(agent().pendingToolCalls(parked.runId)).resolves.toHaveLength(1);
    const done = await agent().resumeGenerate(elicitationReply('cancel'), { runId: parked.runId });
    expect(done.text).toBe('"transfer cancelled by the user"');
  });

  it('sends cancel to the server through the HTTP API', async () => {
    const from = await linesNow();
    const client = new TollgateClient({ baseUrl: server.url, token: TOKEN });
    const remote = client.getAgent('mcp-elicit');
    const parked = await remote.generate('transfer 8');
    expect(parked.finishReason).toBe('suspended');
    expect(parked.suspendPayload?.suspendPayload).toMatchObject({
      message: TRANSFER_QUESTION(8),
    });
    const done = await remote.resumeGenerate(elicitationReply('cancel'), { runId: parked.runId });
    expect(done.text).toBe('"transfer cancelled by the user"');
    expect(await seenSince(from)).toEqual([{ event: 'refused', answer: 'cancel' }]);
  });

  it('declines the second question from the CLI, after the first was answered', async () => {
    const from = await linesNow();
    const flags = ['--task-queue', tollgate.taskQueue];
    const parked = await agent().generate('transfer 100');
    const second = await agent().resumeGenerate(
      { account: 'FR76 3000', confirm: true },
      { runId: parked.runId },
    );
    expect(second.suspendPayload?.suspendPayload).toMatchObject({ requestedSchema: MEMO_SCHEMA });

    const both = await cli([
      'resume',
      parked.runId,
      '--data',
      '{}',
      '--elicitation',
      'decline',
      ...flags,
    ]);
    expect(both.code).toBe(2);
    const bad = await cli(['resume', parked.runId, '--elicitation', 'maybe', ...flags]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--elicitation is 'decline' or 'cancel', not \"maybe\"");
    await expect(agent().pendingToolCalls(parked.runId)).resolves.toHaveLength(1);

    const declined = await cli(['resume', parked.runId, '--elicitation', 'decline', ...flags]);
    expect(declined.code).toBe(0);
    expect(declined.stdout).toContain('transfer declined by the user');
    // The first answer is given again on the re-run, then the second question is declined.
    expect(await seenSince(from)).toEqual([
      { event: 'elicited', answer: { account: 'FR76 3000', confirm: true } },
      { event: 'elicited', answer: { account: 'FR76 3000', confirm: true } },
      { event: 'refused', answer: 'decline' },
    ]);
  });
});
