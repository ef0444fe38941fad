/**
 * Chat channels end to end: a real Temporal run, a worker with channels posting to a local
 * HTTP receiver (Slack format and generic JSON), and the HTTP server serving the signed links.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WorkflowHandle } from '@temporalio/client';
import { Tollgate, type AuditEntry } from '../src/index.js';
import { signLink, type LinkClaims } from '../src/channels/signed-link.js';
import {
  createTollgateServer,
  type ListeningServer,
  type TollgateServer,
} from '../src/server/index.js';
import {
  eventually,
  lastToolOutputs,
  outputsText,
  recordingTool,
  testAgent,
  uniqueQueue,
} from './support/harness.js';
import { parkedDeletes } from './support/parked-deletes.js';

const SECRET = 'channels-test-secret-0123456789abcdef';
const AGENT = 'channels-agent';

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A local webhook receiver: records every POST; `/flaky` answers 503 to a notice's first attempt. */
async function startReceiver(): Promise<{ server: Server; url: string; deliveries: Delivery[] }> {
  const deliveries: Delivery[] = [];
  const seenFlaky = new Set<string>();
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (data: Buffer) => (text += data.toString()));
    request.on('end', () => {
      const delivery = {
        path: request.url ?? '',
        headers: request.headers,
        body: JSON.parse(text),
      };
      deliveries.push(delivery);
      const id = String(request.headers['x-tollgate-notice-id']);
      if (request.url === '/flaky' && !seenFlaky.has(id)) {
        seenFlaky.add(id);
        response.writeHead(503).end('busy');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, deliveries };
}

describe('approvals in chat channels and by signed link', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  // "delete a and b": one gated call per id, one after the other, then the results.
  const { agent } = testAgent(AGENT, [deleteRecord.tool], (prompt) => {
    const asked = /delete ([\w-]+)(?: and ([\w-]+))?/.exec(
      JSON.stringify(prompt.find((message) => message.role === 'user')?.content),
    );
    const ids = [asked?.[1] ?? 'none', ...(asked?.[2] ? [asked[2]] : [])];
    const done = prompt.filter((message) => message.role === 'tool').length;
    if (done < ids.length) {
      return { toolCalls: [{ toolName: 'delete-record', args: { id: ids[done]! } }] };
    }
    return { text: `Result: ${outputsText(lastToolOutputs(prompt) ?? [])}` };
  });
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let steering: Tollgate;
  let worker: Tollgate;
  let server: ListeningServer;
  let linkServer: TollgateServer;

  beforeAll(async () => {
    receiver = await startReceiver();
    const taskQueue = uniqueQueue('channels');
    // The server's runtime hosts no agent: links are served by another process than the worker.
    steering = new Tollgate({ temporal: { taskQueue } });
    linkServer = createTollgateServer({
      tollgate: steering,
      auth: { tokens: [{ token: 'channels-token-0123456789', id: 'alice' }] },
      channels: {
        signingSecret: SECRET,
        // As behind a proxy: the flood below comes from addresses of its own.
        refusals: {
          clientAddress: (request, remote) =>
            request.headers.get('x-forwarded-for') ?? remote ?? 'unknown',
        },
      },
    });
    server = await linkServer.listen({ port: 0 });
    worker = new Tollgate({
      agents: { [AGENT]: agent },
      temporal: { taskQueue },
      channels: {
        publicUrl: server.url,
        signingSecret: SECRET,
        remindEvery: '2s',
        webhooks: [
          { name: 'ops', url: `${receiver.url}/slack` },
          {
            name: 'bob-json',
            url: `${receiver.url}/flaky`,
            format: 'json',
            decideAs: { id: 'bob' },
          },
        ],
      },
    });
    await worker.startWorker();
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await worker?.shutdown();
    await steering?.shutdown();
    await new Promise((done) => receiver?.server.close(done));
  });

  const ops = () => steering.getAgent(AGENT);
  const { executionsOf, park } = parkedDeletes(ops, deleteRecord.executions);

  /** The deliveries of one run's notices of `kind` to `path`, once they have arrived. */
  async function noticesOf(runId: string, path: string, kind: string, count = 1) {
    return eventually(async () => {
      const found = receiver.deliveries.filter(
        (d) =>
          d.path === path &&
          String(d.headers['x-tollgate-notice-id']).startsWith(`${runId}/`) &&
          String(d.headers['x-tollgate-notice-id']).includes(`/${kind}`),
      );
      if (found.length < count) throw new Error(`${found.length} ${kind} notices to ${path}`);
      return found;
    }, 20_000);
  }

  function slackButtons(delivery: Delivery): Record<string, string> {
    const blocks = delivery.body.blocks as Array<{
      type: string;
      elements?: Array<{ text: { text: string }; url: string }>;
    }>;
    const actions = blocks.find((block) => block.type === 'actions');
    return Object.fromEntries((actions?.elements ?? []).map((e) => [e.text.text, e.url]));
  }

  const post = (url: string, from?: string) =>
    fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json', ...(from ? { 'x-forwarded-for': from } : {}) },
    });

  /** What the approve link of `call` claims, deciding as `decidedBy`, for a minute. */
  const approvalClaims = (
    runId: string,
    call: { toolCallId: string; fingerprint: string },
    decidedBy: LinkClaims['decidedBy'],
  ): LinkClaims => ({
    agentId: AGENT,
    runId,
    toolCallId: call.toolCallId,
    fingerprint: call.fingerprint,
    action: 'approve',
    decidedBy,
    expiresAt: Date.now() + 60_000,
  });

  /** Signals in the run's history, in its first `upTo` events when given. */
  async function signalsOf(handle: WorkflowHandle, upTo = Infinity): Promise<number> {
    const { events } = await handle.fetchHistory();
    return (events ?? [])
      .slice(0, upTo)
      .filter((event) => event.workflowExecutionSignaledEventAttributes).length;
  }

  const refusals = (audit: AuditEntry[]) =>
    audit.filter((entry) => entry.type === 'rejected-decision');

  it('posts the request to Slack with Approve / Decline buttons; the approve link decides once, as the channel, and a second use is refused and audited', async () => {
    // A second call follows, so the run is still open to note the refused second use.
    const { runId, call } = await park('rec-slack and rec-slack-next');
    const [notice] = await noticesOf(runId, '/slack', 'request');
    expect(notice!.body.text).toBe(`Approval needed: delete-record (agent ${AGENT})`);
    expect(JSON.stringify(notice!.body.blocks)).toContain('rec-slack');
    const buttons = slackButtons(notice!);
    expect(Object.keys(buttons)).toEqual(['Approve', 'Decline']);
    expect(buttons.Approve).toMatch(new RegExp(`^${server.url}/links/[\\w-]+\\.[\\w-]+$`));

    // GET shows the call and a confirm button; it decides nothing.
    const page = await fetch(buttons.Approve!);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Approve delete-record?');
    expect(html).toContain('&quot;id&quot;: &quot;rec-slack&quot;');
    expect(html).toContain('<form method="post">');
    expect(executionsOf('rec-slack')).toHaveLength(0);

    const first = await post(buttons.Approve!);
    expect([first.status, await first.json()]).toEqual([200, { ok: true, decision: 'approved' }]);
    await eventually(async () => expect(executionsOf('rec-slack')).toHaveLength(1));

    const again = await post(buttons.Approve!);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe(
      'TOOL_CALL_ALREADY_DECIDED',
    );
    const declineAfter = await post(buttons.Decline!);
    expect(declineAfter.status).toBe(409);
    const audit = await eventually(async () => {
      const entries = await ops().getAuditTrail(runId);
      if (refusals(entries).length < 2) throw new Error('refusals not noted yet');
      return entries;
    });
    expect(audit).toContainEqual(
      expect.objectContaining({
        type: 'decision',
        toolCallId: call.toolCallId,
        decision: 'approved',
        channel: 'link',
        decidedBy: { id: 'channel:ops' },
        fingerprint: call.fingerprint,
      }),
    );
    expect(refusals(audit)).toEqual([
      expect.objectContaining({
        kind: 'approve',
        channel: 'link',
        code: 'TOOL_CALL_ALREADY_DECIDED',
      }),
      expect.objectContaining({
        kind: 'decline',
        channel: 'link',
        code: 'TOOL_CALL_ALREADY_DECIDED',
      }),
    ]);
    expect(executionsOf('rec-slack')).toHaveLength(1);
    expect((await ops().getAuditTrail(runId)).some((e) => e.type === 'gate')).toBe(true);
  }, 60_000);

  it('posts a generic JSON event (retried after a 503, under one notice id) whose decline link declines as its webhook identity', async () => {
    const { runId, call } = await park('rec-json');
    const [refused, delivered] = await noticesOf(runId, '/flaky', 'request', 2);
    expect(delivered!.headers['x-tollgate-notice-id']).toBe(
      refused!.headers['x-tollgate-notice-id'],
    );
    expect(delivered!.body).toMatchObject({
      type: 'tollgate.approval.request',
      agentId: AGENT,
      runId,
      toolCallId: call.toolCallId,
      toolName: 'delete-record',
      args: { id: 'rec-json' },
      fingerprint: call.fingerprint,
      links: { decideAs: 'bob' },
    });
    const links = delivered!.body.links as { approve: string; decline: string };
    const declined = await post(links.decline);
    expect([declined.status, await declined.json()]).toEqual([
      200,
      { ok: true, decision: 'declined' },
    ]);
    const audit = await ops().getAuditTrail(runId);
    expect(audit).toContainEqual(
      expect.objectContaining({
        type: 'decision',
        decision: 'declined',
        channel: 'link',
        decidedBy: { id: 'bob' },
      }),
    );
    await (await steering.client()).workflow.getHandle(runId).result();
    expect(executionsOf('rec-json')).toHaveLength(0);
  }, 60_000);

  it('refuses a tampered, an expired and a changed-arguments link before anything is decided, and notes each signed one in the run audit, once', async () => {
    const { runId, call } = await park('rec-forged');
    const [notice] = await noticesOf(runId, '/slack', 'request');
    const approve = slackButtons(notice!).Approve!;
    const claims = approvalClaims(runId, call, { id: 'channel:ops' });
    // Tampered: the payload says "decide as bob", the signature is the channel's.
    const [, signature] = approve.split('/links/')[1]!.split('.');
    const asBob = signLink(
      { ...claims, decidedBy: { id: 'bob' } },
      'another-secret-0123456789abcdefghij',
    );
    const tampered = `${server.url}/links/${asBob.split('.')[0]}.${signature}`;
    const expired = `${server.url}/links/${signLink({ ...claims, expiresAt: Date.now() - 1000 }, SECRET)}`;
    const changed = `${server.url}/links/${signLink({ ...claims, fingerprint: 'f'.repeat(64) }, SECRET)}`;
    const forgedCall = `${server.url}/links/${signLink({ ...claims, toolCallId: 'call-forged' }, SECRET)}`;
    const cases: Array<[string, number, string]> = [
      [tampered, 403, 'LINK_INVALID'],
      [`${server.url}/links/not-a-link`, 403, 'LINK_INVALID'],
      [expired, 410, 'LINK_EXPIRED'],
      [changed, 409, 'FINGERPRINT_MISMATCH'],
      [forgedCall, 409, 'TOOL_CALL_NOT_PENDING'],
    ];
    for (const [url, status, code] of cases) {
      const answer = await post(url);
      const body = (await answer.json()) as { error: { code: string } };
      expect([url, answer.status, body.error.code]).toEqual([url, status, code]);
    }
    // A browser opening the expired link sees why, and no button.
    const page = await fetch(expired);
    expect(page.status).toBe(410);
    expect(await page.text()).not.toContain('<form');
    expect(await ops().pendingToolCalls(runId)).toHaveLength(1);
    expect(executionsOf('rec-forged')).toHaveLength(0);
    const audit = await eventually(async () => {
      const entries = await ops().getAuditTrail(runId);
      if (refusals(entries).length < 3)
        throw new Error(`${refusals(entries).length} refusals noted`);
      return entries;
    });
    // The tampered link's claims are unverified and the malformed one names no run: only the
    // server's report has them. The expired link, opened twice, is noted once.
    expect(refusals(audit).map((e) => (e as { code: string }).code)).toEqual([
      'LINK_EXPIRED',
      'FINGERPRINT_MISMATCH',
      'TOOL_CALL_NOT_PENDING',
    ]);
    expect(linkServer.linkRefusals().recent).toContainEqual(
      expect.objectContaining({ code: 'LINK_INVALID', runId }),
    );
    expect(audit.some((e) => e.type === 'decision')).toBe(false);
    // The genuine link still works afterwards.
    expect((await post(approve)).status).toBe(200);
    await eventually(async () => expect(executionsOf('rec-forged')).toHaveLength(1));
  }, 60_000);

  it('keeps a flood of forged and replayed links out of the run: its history stays as it was, the sources get 429, the owner still approves once', async () => {
    const { runId, call } = await park('rec-flood');
    const [notice] = await noticesOf(runId, '/slack', 'request');
    const approve = slackButtons(notice!).Approve!;
    const handle = (await steering.client()).workflow.getHandle(runId);
    const claims = approvalClaims(runId, call, { id: 'mallory', roles: ['x'.repeat(5000)] });
    const forged = signLink(claims, 'not-the-secret-0123456789abcdefghijklm');
    const expired = signLink({ ...claims, decidedBy: { id: 'channel:ops' }, expiresAt: 1 }, SECRET);
    const before = await handle.describe();

    // 300 forged links from three addresses, 20 at a time, GET and POST; then one expired link
    // this server signed, replayed 30 times from a fourth.
    const statuses: number[] = [];
    const sources = ['198.51.100.1', '198.51.100.2', '198.51.100.3'];
    for (let sent = 0; sent < 300; sent += 20) {
      const batch = Array.from({ length: 20 }, async (_, i) => {
        const from = sources[(sent + i) % sources.length]!;
        const url = `${server.url}/links/${forged}`;
        const answer =
          i % 2
            ? await post(url, from)
            : await fetch(url, { headers: { 'x-forwarded-for': from } });
        if (answer.status === 429)
          expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
        statuses.push(answer.status);
        await answer.body?.cancel();
      });
      await Promise.all(batch);
    }
    for (let i = 0; i < 30; i++)
      statuses.push((await post(`${server.url}/links/${expired}`, '198.51.100.4')).status);
    const counted = (status: number) => statuses.filter((s) => s === status).length;
    expect([counted(403), counted(410), counted(429)]).toEqual([90, 30, 210]);
    const report = linkServer.linkRefusals();
    expect(report.rateLimited).toBeGreaterThanOrEqual(210);
    expect(report.recent.filter((r) => r.runId === runId).length).toBeGreaterThanOrEqual(100);

    // The expired link is noted once; nothing forged reached the run.
    const audit = await eventually(async () => {
      const entries = await ops().getAuditTrail(runId);
      if (refusals(entries).length < 1) throw new Error('the expired link is not noted yet');
      return entries;
    });
    expect(refusals(audit)).toEqual([
      expect.objectContaining({ code: 'LINK_EXPIRED', decidedBy: { id: 'channel:ops' } }),
    ]);
    // One signal (the expired link's note); reminders every 2 s add the rest. A forged link
    // noted in the run would add one signal of over 5 KB each.
    const after = await handle.describe();
    expect(await signalsOf(handle)).toBe((await signalsOf(handle, before.historyLength)) + 1);
    expect(Number(after.historySize) - Number(before.historySize)).toBeLessThan(50_000);

    // The owner's genuine link, from an address of its own, still decides; the tool runs once.
    const approved = await post(approve, '192.0.2.10');
    expect([approved.status, await approved.json()]).toEqual([
      200,
      { ok: true, decision: 'approved' },
    ]);
    await eventually(async () => expect(executionsOf('rec-flood')).toHaveLength(1));
    await handle.result();
    expect(executionsOf('rec-flood')).toHaveLength(1);
  }, 120_000);

  it("never lets a link bypass the call's approvers: the channel's link is refused (and audited), the approver's works", async () => {
    const { runId } = await park('rec-approvers', { approval: { approvers: ['bob'] } });
    const [slack] = await noticesOf(runId, '/slack', 'request');
    const refused = await post(slackButtons(slack!).Approve!);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      'NOT_AN_APPROVER',
    );
    expect(executionsOf('rec-approvers')).toHaveLength(0);
    const [, json] = await noticesOf(runId, '/flaky', 'request', 2);
    const links = json!.body.links as { approve: string };
    expect((await post(links.approve)).status).toBe(200);
    await eventually(async () => expect(executionsOf('rec-approvers')).toHaveLength(1));
    const audit = await ops().getAuditTrail(runId);
    expect(refusals(audit)).toEqual([
      expect.objectContaining({
        code: 'NOT_AN_APPROVER',
        channel: 'link',
        decidedBy: { id: 'channel:ops' },
      }),
    ]);
    expect(audit).toContainEqual(
      expect.objectContaining({ type: 'decision', decision: 'approved', decidedBy: { id: 'bob' } }),
    );
  }, 60_000);

  it('posts reminders while the call waits and an expiry notice when its deadline passes, each once per call and kind; links then expire with it', async () => {
    const { runId } = await park('rec-expiry', {
      approval: { timeout: '5s', onTimeout: 'decline' },
    });
    const [expired] = await noticesOf(runId, '/slack', 'expired');
    expect(expired!.body.text).toBe(
      `Approval expired: delete-record (agent ${AGENT}); handled as decline`,
    );
    expect(slackButtons(expired!)).toEqual({});
    const reminders = await noticesOf(runId, '/slack', 'reminder', 1);
    expect(reminders[0]!.body.text).toMatch(/^Still waiting for approval: delete-record/);
    const [request] = await noticesOf(runId, '/slack', 'request');
    const ids = receiver.deliveries
      .filter(
        (d) =>
          d.path === '/slack' && String(d.headers['x-tollgate-notice-id']).startsWith(`${runId}/`),
      )
      .map((d) => String(d.headers['x-tollgate-notice-id']));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => id.endsWith('/request'))).toHaveLength(1);
    expect(ids.filter((id) => id.endsWith('/expired'))).toHaveLength(1);
    // The link of the request never outlives the call's deadline.
    const late = await post(slackButtons(request!).Approve!);
    expect(late.status).toBe(410);
    expect(executionsOf('rec-expiry')).toHaveLength(0);
  }, 60_000);
});
