import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tollgate } from '../src/index.js';
import { closeMcpConnections, elicitationReply, mcpTools } from '../src/mcp/index.js';
import { hostAgents, testAgent } from './support/harness.js';
import { callByPrompt, serverCalls, stateDir, stdioServer } from './support/mcp-fixtures.js';
import { PAY_MESSAGE, SIGN_IN_MESSAGE } from './support/mcp-url-tools.js';

describe('URL-mode elicitations as durable waits (docs/mcp.md "URL mode")', () => {
  let tollgate: Tollgate;
  let dir: string;

  beforeAll(async () => {
    dir = await stateDir('url-elicitation');
    const tools = await mcpTools({
      name: 'accounts',
      ...stdioServer(dir),
      include: ['connect_account', 'pay'],
    });
    tollgate = await hostAgents(
      [testAgent('mcp-url', Object.values(tools), callByPrompt).agent],
      'mcp-url',
    );
  });
  afterAll(async () => {
    await tollgate.shutdown();
    await closeMcpConnections();
  });

  const agent = () => tollgate.getAgent('mcp-url');
  const events = async (tool: string) => (await serverCalls(dir, tool)).map((line) => line.event);

  it('parks a call the server refuses until a sign-in, and runs it again once the callback happened', async () => {
    const parked = await agent().generate('connect');
    expect(parked.finishReason).toBe('suspended');
    expect(parked.suspendPayload?.suspendPayload).toMatchObject({
      kind: 'mcp-elicitation',
      mode: 'url',
      message: SIGN_IN_MESSAGE,
      url: expect.stringMatching(/^https:\/\/auth\.example\/authorize\?state=/),
      elicitationId: expect.any(String),
    });
    const [pending] = await agent().pendingToolCalls(parked.runId);
    expect(JSON.parse(pending!.resumeSchema)).toMatchObject({
      properties: { 'tollgate/elicitation': { enum: ['accept', 'decline', 'cancel'] } },
    });
    // Form data is not an answer to a page.
    await expect(
      agent().resumeGenerate({ account: 'x' }, { runId: parked.runId }),
    ).rejects.toMatchObject({ code: 'INVALID_RESUME_DATA' });

    // The server's OAuth callback stores the token (here: a flag), then the wait is answered.
    await writeFile(join(dir, 'authorized'), '');
    const done = await agent().resumeGenerate(elicitationReply('accept'), { runId: parked.runId });
    expect(done.text).toBe('"connected as alice"');
    expect(await events('connect_account')).toEqual(['started', 'started', 'done']);
  });

  it("answers the server's URL elicitation with accept on the run after the page, or with decline", async () => {
    const parked = await agent().generate('pay');
    expect(parked.suspendPayload?.suspendPayload).toMatchObject({
      mode: 'url',
      message: PAY_MESSAGE,
      url: expect.stringMatching(/^https:\/\/pay\.example\/checkout\//),
    });
    await writeFile(join(dir, 'paid'), '');
    const paid = await agent().resumeGenerate(elicitationReply('accept'), { runId: parked.runId });
    expect(paid.text).toBe('"paid"');

    const again = await agent().generate('pay');
    const declined = await agent().resumeGenerate(elicitationReply('decline'), {
      runId: again.runId,
    });
    expect(declined.text).toBe('"payment declined by the user"');
    // The parking attempts are not answers: the server saw one accept, then one decline.
    expect(
      (await serverCalls(dir, 'pay')).filter((l) => l.event !== 'started').map((l) => l.answer),
    ).toEqual(['accept', 'decline']);
  });
});
