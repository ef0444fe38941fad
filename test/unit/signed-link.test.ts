/** Signed links and the Slack message: pure modules, no server. */
import { describe, expect, it } from '@jest/globals';
import { checkChannels } from '../../src/channels/channel-options.js';
import { signLink, verifyLink, type LinkClaims } from '../../src/channels/signed-link.js';
import { slackMessage } from '../../src/channels/slack-message.js';

const SECRET = 'unit-secret-0123456789abcdefghijklmnop';
const OLD = 'old-secret-0123456789abcdefghijklmnopq';
const NOW = Date.parse('2026-12-03T12:00:00Z');
const claims: LinkClaims = {
  agentId: 'ops-agent',
  runId: 'ops-1',
  toolCallId: 'call_1',
  fingerprint: 'ab'.repeat(32),
  action: 'approve',
  decidedBy: { id: 'channel:ops', roles: ['ops'] },
  expiresAt: NOW + 60_000,
};

describe('signed decision links', () => {
  it('verifies its own links, with the current or a rotated-out secret, and returns the claims', () => {
    expect(verifyLink(signLink(claims, SECRET), [SECRET], NOW)).toEqual({ ok: true, claims });
    expect(verifyLink(signLink(claims, OLD), [SECRET, OLD], NOW)).toEqual({ ok: true, claims });
  });

  it('refuses altered, foreign, malformed and expired links, naming what the link claimed', () => {
    const token = signLink(claims, SECRET);
    const [payload, signature] = token.split('.') as [string, string];
    const asBob = signLink({ ...claims, decidedBy: { id: 'bob' } }, SECRET).split('.')[0];
    const codeOf = (t: string, now = NOW) => {
      const check = verifyLink(t, [SECRET], now);
      return check.ok ? 'ok' : check.code;
    };
    expect(codeOf(`${asBob}.${signature}`)).toBe('LINK_INVALID');
    expect(codeOf(`${payload}.${signature.slice(0, -2)}AA`)).toBe('LINK_INVALID');
    expect(codeOf(signLink(claims, OLD))).toBe('LINK_INVALID');
    expect(codeOf(`${token}.extra`)).toBe('LINK_INVALID');
    expect(codeOf('not-a-link')).toBe('LINK_INVALID');
    expect(codeOf(token, claims.expiresAt)).toBe('LINK_EXPIRED');
    const altered = verifyLink(`${asBob}.${signature}`, [SECRET], NOW);
    expect(altered).toMatchObject({ ok: false, claimed: { decidedBy: { id: 'bob' } } });
  });

  it('refuses signature text that is not the canonical encoding, though it decodes to the same bytes', () => {
    const token = signLink(claims, SECRET);
    const [payload, signature] = token.split('.') as [string, string];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // 32 bytes take 43 characters: the last one carries 2 spare bits that decoding drops.
    const last = alphabet.indexOf(signature.at(-1)!);
    const spareBitsSet = `${signature.slice(0, -1)}${alphabet[last ^ 1]}`;
    const variants = [spareBitsSet, `${signature}=`, `${signature}==`, `${signature}!`];
    for (const variant of variants) {
      expect(Buffer.from(variant, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
      const check = verifyLink(`${payload}.${variant}`, [SECRET], NOW);
      expect([variant, check.ok ? 'ok' : check.code]).toEqual([variant, 'LINK_INVALID']);
    }
    expect(verifyLink(token, [SECRET], NOW).ok).toBe(true);
  });

  it('refuses short secrets and bad webhooks when the worker is configured', () => {
    const base = {
      publicUrl: 'https://t.example',
      webhooks: [{ name: 'ops', url: 'https://h.example/x' }],
    };
    expect(() => checkChannels({ ...base, signingSecret: 'short' })).toThrow(
      /at least 32 characters/,
    );
    expect(() =>
      checkChannels({
        ...base,
        signingSecret: SECRET,
        webhooks: [{ name: 'ops', url: 'ftp://x' }],
      }),
    ).toThrow(/must be an http\(s\) URL/);
    expect(checkChannels({ ...base, signingSecret: SECRET }).webhooks[0]).toMatchObject({
      format: 'slack',
      decideAs: { id: 'channel:ops' },
      links: true,
    });
  });
});

describe('the Slack message', () => {
  it('escapes Slack control characters in arguments and omits buttons on expiry', () => {
    const notice = {
      target: 'ops',
      kind: 'request' as const,
      noticeId: 'ops-1/call_1/request',
      agentId: 'ops-agent',
      runId: 'ops-1',
      toolCallId: 'call_1',
      toolName: 'sendMail',
      args: { to: '<!channel> & <@U123>' },
      fingerprint: claims.fingerprint,
      requestedAt: new Date(NOW).toISOString(),
    };
    const links = {
      approve: 'https://a',
      decline: 'https://d',
      expiresAt: new Date(NOW).toISOString(),
      decideAs: 'channel:ops',
    };
    const text = JSON.stringify(slackMessage(notice, links));
    expect(text).toContain('&lt;!channel&gt; &amp; &lt;@U123&gt;');
    expect(text).not.toContain('<!channel>');
    expect(text).toContain('"url":"https://a"');
    expect(JSON.stringify(slackMessage({ ...notice, kind: 'expired' }, links))).not.toContain(
      '"actions"',
    );
  });
});
