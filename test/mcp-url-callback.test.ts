/**
 * URL-mode elicitations that resume on a Tollgate callback (docs/mcp.md "URL mode"): a worker
 * whose channels sign MCP callback URLs, a server (another runtime) that serves them, and the
 * test MCP server, whose own checkout handler POSTs the URL it got in `_meta`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tollgate, type Grant } from '../src/index.js';
import { callbackUrl } from '../src/channels/callback-link.js';
import { closeMcpConnections, mcpTools } from '../src/mcp/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { cli } from './support/cli.js';
import { eventually, testAgent, uniqueId, uniqueQueue } from './support/harness.js';
import { callByPrompt, serverCalls, stateDir, stdioServer } from './support/mcp-fixtures.js';
import { SIGN_IN_MESSAGE, SUBSCRIBE_MESSAGE } from './support/mcp-url-tools.js';

const SECRET = 'mcp-callback-test-secret-0123456789abcdef';
const AGENT = 'mcp-callback';

describe('URL-mode elicitations resumed by a signed Tollgate callback', () => {
  let dir: string;
  let steering: Tollgate;
  let worker: Tollgate;
  let server: ListeningServer;

  beforeAll(async () => {
    dir = await stateDir('url-callback');
    const tools = await mcpTools({
      name: 'billing',
      ...stdioServer(dir),
      include: ['connect_account', 'subscribe'],
    });
    const taskQueue = uniqueQueue('mcp-callback');
    // The callbacks are served by another runtime than the worker's, as in production.
    steering = new Tollgate({ temporal: { taskQueue } });
    server = await createTollgateServer({
      tollgate: steering,
      auth: { tokens: [{ token: 'mcp-callback-token-0123456789', id: 'ops' }] },
      channels: { signingSecret: SECRET },
      logError: () => undefined,
    }).listen({ port: 0 });
    worker = new Tollgate({
      agents: { [AGENT]: testAgent(AGENT, Object.values(tools), callByPrompt).agent },
      temporal: { taskQueue },
      // No notice goes anywhere: the channels only give the callbacks their URL and secret.
      channels: {
        publicUrl: server.url,
        signingSecret: SECRET,
        webhooks: [{ name: 'nobody', url: 'http://127.0.0.1:9/', agents: ['no-agent'] }],
      },
    });
    await worker.startWorker();
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await worker?.shutdown();
    await steering?.shutdown();
    await closeMcpConnections();
  });

  const agent = () => steering.getAgent(AGENT);
  const events = async (tool: string) => (await serverCalls(dir, tool)).map((line) => line.event);
  const finished = async (runId: string) =>
    (await steering.client()).workflow.getHandle(runId).result();
  const prefix = () => `${server.url}/callbacks/mcp/`;

  it("resumes a parked call when the MCP server's own callback handler POSTs the URL it got in _meta; the tool runs once", async () => {
    const parked = await agent().generate('subscribe');
    expect(parked.finishReason).toBe('suspended');
    const payload = parked.suspendPayload?.suspendPayload as { callbackUrl: string };
    expect(payload).toMatchObject({ mode: 'url', message: SUBSCRIBE_MESSAGE });
    expect(payload.callbackUrl.startsWith(prefix())).toBe(true);
    const [started] = await serverCalls(dir, 'subscribe');
    expect(started!.callbackUrl!.startsWith(prefix())).toBe(true);

    // The checkout page is paid: the server's handler stores it and calls Tollgate back.
    await writeFile(join(dir, 'checkout-complete'), '');
    await expect(finished(parked.runId)).resolves.toMatchObject({ finishReason: 'stop' });
    const callback = await eventually(async () => {
      const line = (await serverCalls(dir, 'subscribe')).find((l) => l.event === 'callback');
      if (!line) throw new Error('no callback yet');
      return line;
    });
    expect(callback.answer).toEqual({
      status: 200,
      body: { ok: true, outcome: 'answered' },
    });
    expect((await events('subscribe')).filter((e) => e !== 'callback')).toEqual([
      'started',
      'started',
      'done',
    ]);
    const decisions = (await agent().getAuditTrail(parked.runId)).filter(
      (entry) => entry.type === 'decision',
    );
    expect(decisions).toMatchObject([
      { decision: 'resumed', channel: 'link', decidedBy: { id: 'mcp:billing' } },
    ]);
  });

  it("resumes a call from a browser's GET of the payload's callbackUrl; a second GET changes nothing", async () => {
    const parked = await agent().generate('connect');
    const payload = parked.suspendPayload?.suspendPayload as { callbackUrl: string };
    expect(payload).toMatchObject({ mode: 'url', message: SIGN_IN_MESSAGE });
    await writeFile(join(dir, 'authorized'), '');

    const first = await fetch(payload.callbackUrl, { headers: { accept: 'text/html' } });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain('text/html');
    expect(await first.text()).toContain('you can close this page');
    await expect(finished(parked.runId)).resolves.toMatchObject({ finishReason: 'stop' });
    expect(await events('connect_account')).toEqual(['started', 'started', 'done']);

    const again = await fetch(payload.callbackUrl, { headers: { accept: 'text/html' } });
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('nothing was changed');
    const json = await fetch(payload.callbackUrl, { headers: { accept: 'application/json' } });
    expect(await json.json()).toEqual({ ok: true, outcome: 'not-waiting' });
    expect(await events('connect_account')).toEqual(['started', 'started', 'done']);
    const decisions = (await agent().getAuditTrail(parked.runId)).filter(
      (entry) => entry.type === 'decision',
    );
    expect(decisions).toHaveLength(1);
  });

  it('refuses an altered, a mismatched and an expired callback, and a decline, with typed codes; the call still waits and the tool does not run', async () => {
    await rm(join(dir, 'authorized'), { force: true });
    const [a, b] = [await agent().generate('connect'), await agent().generate('connect')];
    const [waiting] = await agent().pendingToolCalls(a.runId);
    const ofA = waiting!.suspendPayload as { elicitationId: string };
    const ofB = b.suspendPayload?.suspendPayload as { callbackUrl: string; elicitationId: string };
    const startedBefore = (await events('connect_account')).length;
    const claims = {
      agentId: AGENT,
      runId: a.runId,
      toolCallId: waiting!.toolCallId,
      server: 'billing',
      answered: 0,
    };
    const post = async (url: string) => {
      const response = await fetch(url, { method: 'POST' });
      return { status: response.status, ...((await response.json()) as object) };
    };

    // B's URL with A's run id written over B's: the signature no longer holds.
    const [payloadB, signatureB] = ofB.callbackUrl.slice(prefix().length).split('.');
    const wire = JSON.parse(Buffer.from(payloadB!, 'base64url').toString()) as { r: string };
    const altered = Buffer.from(JSON.stringify({ ...wire, r: a.runId })).toString('base64url');
    expect(await post(`${prefix()}${altered}.${signatureB}`)).toMatchObject({
      status: 403,
      error: { code: 'LINK_INVALID' },
    });
    // Signed, but bound to another run's elicitation than the one A's call waits on.
    const expiresAt = Date.now() + 60_000;
    const mismatched = { ...claims, elicitationId: ofB.elicitationId, expiresAt };
    expect(await post(callbackUrl(server.url, mismatched, SECRET))).toMatchObject({
      status: 409,
      error: { code: 'MCP_ELICITATION_NOT_WAITING' },
    });
    const expired = { ...claims, elicitationId: ofA.elicitationId, expiresAt: Date.now() - 1 };
    expect(await post(callbackUrl(server.url, expired, SECRET))).toMatchObject({
      status: 410,
      error: { code: 'LINK_EXPIRED' },
    });
    const other = { ...claims, elicitationId: ofA.elicitationId, expiresAt };
    expect(
      await post(callbackUrl(server.url, other, 'another-secret-0123456789abcdefghij')),
    ).toMatchObject({
      status: 403,
      error: { code: 'LINK_INVALID' },
    });

    // Rightly signed and bound to A's wait, but a callback only accepts: declining takes a decider.
    expect(await post(`${callbackUrl(server.url, other, SECRET)}?action=decline`)).toMatchObject({
      status: 400,
      error: { code: 'BAD_REQUEST' },
    });

    const [still] = await agent().pendingToolCalls(a.runId);
    expect(still?.suspendPayload).toMatchObject({ elicitationId: ofA.elicitationId });
    expect((await agent().pendingToolCalls(b.runId)).length).toBe(1);
    expect((await events('connect_account')).length).toBe(startedBefore);
    expect(await events('connect_account')).not.toContain('refused');
    const audit = await agent().getAuditTrail(a.runId);
    expect(audit.filter((entry) => entry.type === 'decision')).toEqual([]);
  });

  it('tollgate grant --mcp-server grants every tool of the server; with a tool name too it is refused', async () => {
    const flags = ['--task-queue', worker.taskQueue, '--json'];
    const where = ['--resource', uniqueId('tenant'), '--for', '1h', '--as', 'alice'];
    const given = await cli(['grant', AGENT, '--mcp-server', 'billing', ...where, ...flags]);
    expect(given.stderr).toBe('');
    expect(given.code).toBe(0);
    const { grant } = JSON.parse(given.stdout) as { grant: Grant };
    expect(grant).toMatchObject({ toolName: 'mcp:billing/*', grantedBy: { id: 'alice' } });
    expect(grant.definition).toMatch(/^[0-9a-f]{64}$/);

    const both = await cli([
      'grant',
      AGENT,
      'subscribe',
      '--mcp-server',
      'billing',
      ...where,
      ...flags,
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('INVALID_GRANT');
    const listed = await worker.grants.list({ agentId: AGENT });
    expect(listed.map((g) => g.grantId)).toEqual([grant.grantId]);
  });
});
