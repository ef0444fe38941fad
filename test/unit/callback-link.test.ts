/** MCP callback URLs (docs/mcp.md "URL mode"): signing and checking, no server. */
import { describe, expect, it } from '@jest/globals';
import { checkChannels } from '../../src/channels/channel-options.js';
import {
  callbackSigner,
  callbackUrl,
  verifyCallback,
  type CallbackClaims,
} from '../../src/channels/callback-link.js';
import { signLink } from '../../src/channels/signed-link.js';

const SECRET = 'unit-secret-0123456789abcdefghijklmnop';
const OLD = 'old-secret-0123456789abcdefghijklmnopq';
const NOW = Date.parse('2026-12-06T12:00:00Z');
const PUBLIC = 'https://tollgate.example';
const claims: CallbackClaims = {
  agentId: 'ops-agent',
  runId: 'ops-1',
  toolCallId: 'call_1',
  server: 'billing',
  answered: 1,
  elicitationId: 'el-7',
  expiresAt: NOW + 60_000,
};
const tokenOf = (url: string) => url.slice(`${PUBLIC}/callbacks/mcp/`.length);
const codeOf = (token: string, now = NOW) => {
  const check = verifyCallback(token, [SECRET], now);
  return check.ok ? 'ok' : check.code;
};

describe('signed MCP callback URLs', () => {
  it('verifies its own URLs, with the current or a rotated-out secret, with or without an elicitation id', () => {
    const url = callbackUrl(PUBLIC, claims, SECRET);
    expect(url.startsWith(`${PUBLIC}/callbacks/mcp/`)).toBe(true);
    expect(verifyCallback(tokenOf(url), [SECRET], NOW)).toEqual({ ok: true, claims });
    const old = tokenOf(callbackUrl(PUBLIC, claims, OLD));
    expect(verifyCallback(old, [SECRET, OLD], NOW)).toEqual({ ok: true, claims });
    const { elicitationId: _, ...unbound } = claims;
    const beforeAsked = tokenOf(callbackUrl(PUBLIC, unbound, SECRET));
    expect(verifyCallback(beforeAsked, [SECRET], NOW)).toEqual({ ok: true, claims: unbound });
  });

  it('refuses altered, foreign, malformed and expired URLs, and decision links', () => {
    const token = tokenOf(callbackUrl(PUBLIC, claims, SECRET));
    const [, signature] = token.split('.') as [string, string];
    const other = tokenOf(callbackUrl(PUBLIC, { ...claims, runId: 'ops-2' }, SECRET)).split('.')[0];
    expect(codeOf(`${other}.${signature}`)).toBe('LINK_INVALID');
    expect(codeOf(tokenOf(callbackUrl(PUBLIC, claims, OLD)))).toBe('LINK_INVALID');
    expect(codeOf(`${token}.extra`)).toBe('LINK_INVALID');
    expect(codeOf('not-a-token')).toBe('LINK_INVALID');
    expect(codeOf(token, claims.expiresAt)).toBe('LINK_EXPIRED');
    // Signed with the same secret, but a decision link: another context, so another MAC.
    const link = signLink(
      {
        agentId: 'ops-agent',
        runId: 'ops-1',
        toolCallId: 'call_1',
        fingerprint: 'ab'.repeat(32),
        action: 'approve',
        decidedBy: { id: 'mcp:billing' },
        expiresAt: NOW + 60_000,
      },
      SECRET,
    );
    expect(codeOf(link)).toBe('LINK_INVALID');
    const refused = verifyCallback(`${other}.${signature}`, [SECRET], NOW);
    expect(refused).toMatchObject({ ok: false, runId: 'ops-2' });
  });

  it("signs on a worker whose channels have a secret, for the channels' link TTL; not without one", () => {
    const webhooks = [{ name: 'ops', url: 'https://hooks.example/x', links: false }];
    const withSecret = checkChannels({ publicUrl: PUBLIC, webhooks, signingSecret: SECRET });
    const signer = callbackSigner(withSecret)!;
    const url = signer({ agentId: 'a', runId: 'r', toolCallId: 'c' })({
      server: 'billing',
      answered: 0,
    });
    const check = verifyCallback(tokenOf(url), [SECRET], Date.now());
    expect(check).toMatchObject({ ok: true, claims: { runId: 'r', server: 'billing' } });
    const expiresAt = check.ok ? check.claims.expiresAt : 0;
    expect(expiresAt - Date.now()).toBeGreaterThan(23 * 3_600_000);
    const previous = process.env.TOLLGATE_CHANNELS_SECRET;
    delete process.env.TOLLGATE_CHANNELS_SECRET;
    try {
      expect(callbackSigner(checkChannels({ publicUrl: PUBLIC, webhooks }))).toBeUndefined();
    } finally {
      if (previous !== undefined) process.env.TOLLGATE_CHANNELS_SECRET = previous;
    }
    expect(callbackSigner(undefined)).toBeUndefined();
  });
});
