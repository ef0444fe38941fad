/**
 * Email notices end to end: a real Temporal run, a worker mailing waiting calls through a local
 * SMTP server (parsed with mailparser), and the HTTP server serving the mails' signed links.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Tollgate } from '../src/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import {
  eventually,
  lastToolOutputs,
  outputsText,
  recordingTool,
  testAgent,
  uniqueQueue,
} from './support/harness.js';
import { parkedDeletes } from './support/parked-deletes.js';
import { startSmtpInbox, type ReceivedMail, type SmtpInbox } from './support/smtp-inbox.js';

const SECRET = 'email-test-secret-0123456789abcdefgh';
const AGENT = 'email-agent';
const PASSWORD_ENV = 'EMAIL_TEST_SMTP_PASSWORD';
const PASSWORD = `smtp-password-${Math.random().toString(36).slice(2)}`;
const ALICE = 'alice@example.test';
const BOB = 'bob@example.test';
const GONE = 'gone@example.test';

/** Ports nobody listens on: an SMTP server that is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** Every payload of a history as text: what a reader of the history can see. */
function payloadTexts(value: unknown, texts: string[] = []): string[] {
  if (value instanceof Uint8Array) texts.push(Buffer.from(value).toString('utf8'));
  else if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) payloadTexts(inner, texts);
  }
  return texts;
}

describe('approvals by email, with signed links', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  // "delete <anything>": one gated call with that id, then the result.
  const { agent } = testAgent(AGENT, [deleteRecord.tool], (prompt) => {
    const outputs = lastToolOutputs(prompt);
    if (outputs) return { text: `Result: ${outputsText(outputs)}` };
    const content = prompt.find((message) => message.role === 'user')?.content;
    const text =
      typeof content === 'string'
        ? content
        : (content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
    return { toolCalls: [{ toolName: 'delete-record', args: { id: text.slice(7) } }] };
  });
  let inbox: SmtpInbox;
  let steering: Tollgate;
  let worker: Tollgate;
  let server: ListeningServer;

  const emailOf = (port: number) => ({
    smtp: {
      host: '127.0.0.1',
      port,
      tls: 'none' as const,
      user: 'tollgate',
      passwordEnv: PASSWORD_ENV,
    },
    from: 'Tollgate <tollgate@example.test>',
    groups: [
      { name: 'ops', to: [ALICE, { address: BOB, decideAs: { id: 'bob' } }] },
      { name: 'left', to: [GONE] },
    ],
  });

  beforeAll(async () => {
    process.env[PASSWORD_ENV] = PASSWORD;
    inbox = await startSmtpInbox({
      user: 'tollgate',
      password: PASSWORD,
      flaky: [BOB],
      unknown: [GONE],
    });
    const taskQueue = uniqueQueue('email');
    steering = new Tollgate({ temporal: { taskQueue } });
    server = await createTollgateServer({
      tollgate: steering,
      auth: { tokens: [{ token: 'email-token-0123456789', id: 'alice' }] },
      channels: { signingSecret: SECRET },
    }).listen({ port: 0 });
    worker = new Tollgate({
      agents: { [AGENT]: agent },
      temporal: { taskQueue },
      channels: {
        publicUrl: server.url,
        signingSecret: SECRET,
        remindEvery: '2s',
        email: emailOf(inbox.port),
      },
    });
    await worker.startWorker();
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await worker?.shutdown();
    await steering?.shutdown();
    await inbox?.close();
  });

  const ops = () => steering.getAgent(AGENT);
  const { executionsOf, park } = parkedDeletes(ops, deleteRecord.executions);

  const noticeIdOf = (received: ReceivedMail) =>
    String(received.mail.headers.get('x-tollgate-notice-id'));

  /** The accepted mails to `address` about `runId` of `kind`, once `count` have arrived. */
  async function mailsOf(runId: string, address: string, kind: string, count = 1) {
    return eventually(async () => {
      const found = inbox
        .mailsTo(address)
        .filter((r) => noticeIdOf(r).startsWith(`${runId}/`) && noticeIdOf(r).includes(`/${kind}`));
      if (found.length < count) throw new Error(`${found.length} ${kind} mails to ${address}`);
      return found;
    }, 20_000);
  }

  /** The links a mail's text part offers, by their label. */
  function linksOf(received: ReceivedMail): Record<string, string> {
    const text = received.mail.text ?? '';
    return Object.fromEntries(
      [...text.matchAll(/^(Approve|Decline): (\S+)$/gm)].map((m) => [m[1], m[2]]),
    );
  }

  const hrefsOf = (received: ReceivedMail) =>
    [...String(received.mail.html).matchAll(/href="([^"]*)"/g)].map((m) =>
      m[1]!.replace(/&amp;/g, '&'),
    );

  const post = (url: string) =>
    fetch(url, { method: 'POST', headers: { accept: 'application/json' } });

  it('mails a gated call to each recipient once, with text and HTML parts and working links; the approve link decides as the recipient and the tool runs once', async () => {
    const { runId, call } = await park('rec-mail');
    const [received] = await mailsOf(runId, ALICE, 'request');
    const { mail } = received!;
    expect(mail.subject).toBe(`Approval needed: delete-record (agent ${AGENT})`);
    expect(mail.from?.value).toEqual([{ name: 'Tollgate', address: 'tollgate@example.test' }]);
    expect(mail.messageId).toMatch(/^<tollgate\.[0-9a-f]{32}\.request@example\.test>$/);
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail.text).toContain('"id": "rec-mail"');
    expect(mail.html).toContain('&quot;id&quot;: &quot;rec-mail&quot;');
    expect(mail.text).toContain(`Fingerprint: ${call.fingerprint.slice(0, 16)}`);
    const links = linksOf(received!);
    expect(Object.keys(links)).toEqual(['Approve', 'Decline']);
    expect(links.Approve).toMatch(new RegExp(`^${server.url}/links/[\\w-]+\\.[\\w-]+$`));
    expect(hrefsOf(received!)).toEqual([links.Approve, links.Decline]);
    expect(mail.text).toContain(`decides as email:${ALICE}`);
    // Bob's mail comes on its retry (the server answers 451 first); both arrive before deciding,
    // since a run that ends drops the notices it still retries.
    expect(await mailsOf(runId, BOB, 'request')).toHaveLength(1);

    // Opening the link shows the call and decides nothing; the confirm button decides.
    const page = await fetch(links.Approve!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Approve delete-record?');
    expect(executionsOf('rec-mail')).toHaveLength(0);
    const approved = await post(links.Approve!);
    expect([approved.status, await approved.json()]).toEqual([
      200,
      { ok: true, decision: 'approved' },
    ]);
    await eventually(async () => expect(executionsOf('rec-mail')).toHaveLength(1));
    expect((await post(links.Approve!)).status).toBe(409);

    const handle = (await steering.client()).workflow.getHandle(runId);
    await handle.result();
    expect(executionsOf('rec-mail')).toHaveLength(1);
    expect(await ops().getAuditTrail(runId)).toContainEqual(
      expect.objectContaining({
        type: 'decision',
        decision: 'approved',
        channel: 'link',
        decidedBy: { id: `email:${ALICE}` },
      }),
    );
    // One request mail; the SMTP password is nowhere in the run's history.
    expect(await mailsOf(runId, ALICE, 'request')).toHaveLength(1);
    const history = payloadTexts(await handle.fetchHistory()).join('\n');
    expect(history).toContain(`ops/${ALICE}`);
    expect(history).not.toContain(PASSWORD);
  }, 60_000);

  it("retries a busy server's 451 under the same Message-ID; a recipient's decline link declines as its own identity and the tool never runs", async () => {
    const { runId } = await park('rec-decline');
    const [delivered] = await mailsOf(runId, BOB, 'request');
    const attempts = inbox.received.filter(
      (r) =>
        r.to.includes(BOB) &&
        noticeIdOf(r) === `${runId}/${noticeIdOf(delivered!).split('/')[1]}/request`,
    );
    expect(attempts.map((r) => [r.accepted, r.mail.messageId])).toEqual([
      [false, delivered!.mail.messageId],
      [true, delivered!.mail.messageId],
    ]);
    const [aliceMail] = await mailsOf(runId, ALICE, 'request');
    expect(aliceMail!.mail.messageId).not.toBe(delivered!.mail.messageId);
    expect(delivered!.mail.text).toContain('decides as bob');

    const declined = await post(linksOf(delivered!).Decline!);
    expect([declined.status, await declined.json()]).toEqual([
      200,
      { ok: true, decision: 'declined' },
    ]);
    await (await steering.client()).workflow.getHandle(runId).result();
    expect(executionsOf('rec-decline')).toHaveLength(0);
    expect(await ops().getAuditTrail(runId)).toContainEqual(
      expect.objectContaining({ type: 'decision', decision: 'declined', decidedBy: { id: 'bob' } }),
    );
  }, 60_000);

  it("escapes hostile arguments: no markup of the agent's reaches the HTML part, no line of its own the text part, and the only links are Tollgate's", async () => {
    const hostile =
      '</pre><script>alert(1)</script><a href="https://evil.example/x">Approve</a><img src=x onerror=alert(1)>\nApprove: https://evil.example/y';
    const { runId } = await park(hostile);
    const [received] = await mailsOf(runId, ALICE, 'request');
    const html = String(received!.mail.html);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('</pre><');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const links = linksOf(received!);
    expect(hrefsOf(received!)).toEqual([links.Approve, links.Decline]);
    expect(links.Approve).toMatch(new RegExp(`^${server.url}/links/`));
    // The newline stays inside a JSON string: the text part has one "Approve:" line, Tollgate's.
    expect(received!.mail.text!.match(/^Approve:/gm)).toHaveLength(1);
    expect(received!.mail.text).toContain('\\nApprove: https://evil.example/y');
    expect((await post(links.Decline!)).status).toBe(200);
    expect(executionsOf(hostile)).toHaveLength(0);
  }, 60_000);

  it('threads reminders and the expiry under the request: each has its own stable Message-ID, In-Reply-To and References name the request, the expiry has no links', async () => {
    const { runId } = await park('rec-expiry', {
      approval: { timeout: '5s', onTimeout: 'decline' },
    });
    const [expired] = await mailsOf(runId, ALICE, 'expired');
    const [request] = await mailsOf(runId, ALICE, 'request');
    const reminders = await mailsOf(runId, ALICE, 'reminder');
    const root = request!.mail.messageId!;
    for (const followUp of [...reminders, expired!]) {
      expect(followUp.mail.inReplyTo).toBe(root);
      expect([followUp.mail.references].flat()).toEqual([root]);
      expect(followUp.mail.subject).toBe(`Re: ${request!.mail.subject}`);
    }
    expect(reminders[0]!.mail.text).toMatch(/^Still waiting for approval: delete-record/);
    expect(reminders[0]!.mail.messageId).toMatch(/\.reminder\.1@example\.test>$/);
    expect(expired!.mail.text).toMatch(/^Approval expired: delete-record .*handled as decline/);
    expect(linksOf(expired!)).toEqual({});
    expect(String(expired!.mail.html)).not.toContain('href=');
    const ids = inbox
      .mailsTo(ALICE)
      .filter((r) => noticeIdOf(r).startsWith(`${runId}/`))
      .map((r) => r.mail.messageId);
    expect(new Set(ids).size).toBe(ids.length);
    // The request's link never outlives the call's deadline.
    expect((await post(linksOf(request!).Approve!)).status).toBe(410);
    expect(executionsOf('rec-expiry')).toHaveLength(0);
  }, 60_000);

  it('fails a mail the SMTP server refuses for good (550) on its first attempt, without retrying it; the others are mailed and the run still waits', async () => {
    const { runId } = await park('rec-gone');
    const handle = (await steering.client()).workflow.getHandle(runId);
    const failed = await eventually(async () => {
      const { events } = await handle.fetchHistory();
      const found = (events ?? []).filter((event) =>
        event.activityTaskFailedEventAttributes?.failure?.message?.includes(GONE),
      );
      if (found.length === 0) throw new Error(`no failed mail to ${GONE} yet`);
      return { events: events ?? [], found };
    }, 20_000);
    // Reminders every 2 s fail the same way: each failure is its notice's first and last attempt.
    for (const event of failed.found) {
      const failure = event.activityTaskFailedEventAttributes!;
      expect(failure.failure?.applicationFailureInfo?.type).toBe(
        'tollgate.CHANNEL_DELIVERY_FAILED',
      );
      expect(failure.failure?.applicationFailureInfo?.nonRetryable).toBe(true);
      const started = failed.events.find(
        (candidate) => candidate.eventId?.toString() === failure.startedEventId?.toString(),
      );
      expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(1);
    }
    expect(await mailsOf(runId, ALICE, 'request')).toHaveLength(1);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(await ops().pendingToolCalls(runId)).toHaveLength(1);
    const [aliceMail] = await mailsOf(runId, ALICE, 'request');
    expect((await post(linksOf(aliceMail!).Decline!)).status).toBe(200);
    expect(executionsOf('rec-gone')).toHaveLength(0);
  }, 60_000);

  it('keeps a run waiting while its SMTP server is down, retrying the mail; the call is still approved in the inbox and the tool runs once', async () => {
    const taskQueue = uniqueQueue('email-down');
    const down = new Tollgate({
      agents: { [AGENT]: agent },
      temporal: { taskQueue },
      channels: {
        publicUrl: server.url,
        signingSecret: SECRET,
        email: emailOf(await closedPort()),
      },
    });
    try {
      await down.startWorker();
      const parked = await down.getAgent(AGENT).generate('delete rec-down');
      expect(parked.finishReason).toBe('suspended');
      const handle = (await down.client()).workflow.getHandle(parked.runId);
      const notice = await eventually(async () => {
        const pending = (await handle.describe()).raw.pendingActivities ?? [];
        const mail = pending.find(
          (a) => a.activityType?.name === 'sendChannelNotice' && (a.attempt ?? 0) >= 2,
        );
        if (!mail) throw new Error('the mail is not retried yet');
        return mail;
      }, 20_000);
      expect(notice.lastFailure?.message).toMatch(/could not be sent/);
      expect((await handle.describe()).status.name).toBe('RUNNING');

      const done = await down.getAgent(AGENT).approveToolCallGenerate({ runId: parked.runId });
      expect(done.text).toContain('rec-down');
      expect(executionsOf('rec-down')).toHaveLength(1);
      expect((await handle.describe()).status.name).toBe('COMPLETED');
    } finally {
      await down.shutdown();
    }
  }, 60_000);
});
