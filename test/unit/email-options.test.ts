/** `channels.email`: its checks, its targets and the mails' ids. Pure modules, no server. */
import { describe, expect, it } from '@jest/globals';
import {
  channelManifest,
  checkChannels,
  type ChannelsOptions,
} from '../../src/channels/channel-options.js';
import { checkEmail, type EmailOptions } from '../../src/channels/email-options.js';
import { mailIds, noticeMail } from '../../src/channels/email-message.js';
import type { ChannelNoticeInput } from '../../src/common/channel-types.js';

const SECRET = 'unit-secret-0123456789abcdefghijklmnop';
const email: EmailOptions = {
  smtp: { host: 'smtp.example.com', user: 'tollgate', passwordEnv: 'UNIT_SMTP_PASSWORD' },
  from: 'Tollgate <tollgate@example.com>',
  groups: [
    {
      name: 'ops',
      to: ['alice@example.com', { address: 'bob@example.com', decideAs: { id: 'bob' } }],
    },
    { name: 'billing', to: ['carol@example.com'], agents: ['billing-agent'] },
  ],
};
const env = { UNIT_SMTP_PASSWORD: 'hunter2-hunter2' };
const notice: ChannelNoticeInput = {
  target: 'ops/alice@example.com',
  kind: 'request',
  noticeId: 'run-1/call_1/request',
  agentId: 'ops-agent',
  runId: 'run-1',
  toolCallId: 'call_1',
  toolName: 'deleteRecord',
  args: { id: 'rec-1' },
  fingerprint: 'ab'.repeat(32),
  requestedAt: '2026-12-06T08:00:00.000Z',
};

const codeAndMessage = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return `${(error as { code: string }).code}: ${(error as Error).message}`;
  }
  return 'no error';
};

describe('channels.email', () => {
  it('fills in the defaults: STARTTLS on 587, the password from the env, one target per recipient deciding as email:<address>', () => {
    const checked = checkEmail(email, new Set(), env);
    expect(checked.smtp).toEqual({
      host: 'smtp.example.com',
      port: 587,
      tls: 'starttls',
      auth: { user: 'tollgate', pass: 'hunter2-hunter2' },
    });
    expect(checked.domain).toBe('example.com');
    expect(checked.recipients.map((r) => [r.target, r.decideAs.id])).toEqual([
      ['ops/alice@example.com', 'email:alice@example.com'],
      ['ops/bob@example.com', 'bob'],
      ['billing/carol@example.com', 'email:carol@example.com'],
    ]);
  });

  it('puts only target names in the manifest, filtered by agent, and takes email without webhooks', () => {
    process.env.UNIT_SMTP_PASSWORD = env.UNIT_SMTP_PASSWORD;
    const options: ChannelsOptions = {
      publicUrl: 'https://t.example.com',
      signingSecret: SECRET,
      email,
    };
    const channels = checkChannels(options);
    expect(channelManifest(channels, 'ops-agent')).toEqual({
      channels: { targets: ['ops/alice@example.com', 'ops/bob@example.com'] },
    });
    expect(channelManifest(channels, 'billing-agent').channels?.targets).toHaveLength(3);
    expect(JSON.stringify(channelManifest(channels, 'ops-agent'))).not.toContain('hunter2');
  });

  it('refuses an address that could add a header or a recipient, a missing password, a repeated target, and no channel at all', () => {
    const withTo = (to: EmailOptions['groups'][0]['to']) => ({
      ...email,
      groups: [{ name: 'ops', to }],
    });
    expect(
      codeAndMessage(() =>
        checkEmail(withTo(['a@example.com\r\nBcc: x@evil.example']), new Set(), env),
      ),
    ).toMatch(/^INVALID_OPTIONS: channels.email.groups\[0\].to\[0\] must be one plain address/);
    expect(
      codeAndMessage(() => checkEmail(withTo(['a@example.com, x@evil.example']), new Set(), env)),
    ).toMatch(/INVALID_OPTIONS/);
    expect(codeAndMessage(() => checkEmail(email, new Set(), {}))).toBe(
      'INVALID_OPTIONS: channels.email.smtp.user needs a password in the env var UNIT_SMTP_PASSWORD; set it, or drop user to send without SMTP AUTH.',
    );
    expect(
      codeAndMessage(() => checkEmail(withTo(['a@example.com', 'a@example.com']), new Set(), env)),
    ).toMatch(/makes the target "ops\/a@example.com" twice/);
    expect(
      codeAndMessage(() =>
        checkEmail(withTo(['a@example.com']), new Set(['ops/a@example.com']), env),
      ),
    ).toMatch(/or a webhook has that name/);
    expect(
      codeAndMessage(() =>
        checkEmail({ ...email, from: 'x <a@b.c>\r\nBcc: d@e.f' }, new Set(), env),
      ),
    ).toMatch(/channels.email.from must be an address/);
    expect(
      codeAndMessage(() =>
        checkEmail({ ...email, smtp: { host: 'h', tls: 'ssl' as 'none' } }, new Set(), env),
      ),
    ).toMatch(/smtp.tls must be 'starttls', 'implicit' or 'none'/);
    expect(
      codeAndMessage(() =>
        checkChannels({ publicUrl: 'https://t.example.com', signingSecret: SECRET }),
      ),
    ).toMatch(/or give channels.slack or channels.email/);
  });

  it('gives each mail a Message-ID stable across attempts, apart per recipient and per run that reuses an id, and threads follow-ups under the request', () => {
    const request = mailIds(notice, 'example.com');
    expect(request).toEqual(mailIds({ ...notice }, 'example.com'));
    expect(request.messageId).toMatch(/^<tollgate\.[0-9a-f]{32}\.request@example\.com>$/);
    expect(mailIds({ ...notice, target: 'ops/bob@example.com' }, 'example.com').messageId).not.toBe(
      request.messageId,
    );
    expect(
      mailIds({ ...notice, requestedAt: '2026-12-07T08:00:00.000Z' }, 'example.com').messageId,
    ).not.toBe(request.messageId);
    const reminder = noticeMail(
      { ...notice, kind: 'reminder', noticeId: 'run-1/call_1/reminder/2', waitedMs: 60_000 },
      'example.com',
      undefined,
    );
    expect(reminder.messageId).toBe(request.messageId.replace('.request@', '.reminder.2@'));
    expect([reminder.inReplyTo, reminder.references]).toEqual([
      request.messageId,
      request.messageId,
    ]);
    expect(reminder.subject).toBe('Re: Approval needed: deleteRecord (agent ops-agent)');
  });

  it('keeps the subject to one line and the arguments bounded', () => {
    const mail = noticeMail(
      { ...notice, toolName: 'evil\r\nBcc: x@evil.example', args: { blob: 'x'.repeat(50_000) } },
      'example.com',
      undefined,
    );
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.text.length).toBeLessThan(11_000);
    expect(mail.html.length).toBeLessThan(12_000);
  });
});
