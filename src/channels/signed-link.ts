/**
 * Signed decision links (docs/channels.md): `<payload>.<signature>`, both base64url, the
 * signature an HMAC-SHA256 over the payload with the channels' signing secret. The payload
 * names the run, the call, its fingerprint, approve or decline, who decides and until when.
 * Nothing is stored: a link is single-use because the run takes one decision per call.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DecidedBy } from '../common/run-types.js';

/** What a link decides, and as whom. */
export interface LinkClaims {
  agentId: string;
  runId: string;
  toolCallId: string;
  /** The call's fingerprint when the notice was sent: changed arguments are refused. */
  fingerprint: string;
  action: 'approve' | 'decline';
  /** Who decides: the webhook's `decideAs`, judged against the call's approvers by the run. */
  decidedBy: DecidedBy;
  /** Epoch ms after which the link is refused (`LINK_EXPIRED`). */
  expiresAt: number;
}

export type LinkCheck =
  | { ok: true; claims: LinkClaims }
  | {
      ok: false;
      code: 'LINK_INVALID';
      message: string;
      /** What the link claims, unverified: for the operator's report, never sent to a run. */
      claimed?: LinkClaims;
    }
  | {
      ok: false;
      code: 'LINK_EXPIRED';
      message: string;
      /** Signed by this server: the run it names may note the refusal. */
      claims: LinkClaims;
    };

/** Versioned, so a later format cannot be mistaken for this one. */
const CONTEXT = 'tollgate-link.v1.';

export function signLink(claims: LinkClaims, secret: string): string {
  const payload = Buffer.from(JSON.stringify(toWire(claims))).toString('base64url');
  return `${payload}.${mac(payload, secret)}`;
}

/**
 * Checks a link's signature with each secret (the first signs; the others are earlier ones
 * still accepted while they are rotated out), then its expiry against `now`.
 */
export function verifyLink(token: string, secrets: readonly string[], now: number): LinkCheck {
  const [payload, signature, extra] = token.split('.');
  const claimed = payload ? parseClaims(payload) : undefined;
  const invalid = (why: string): LinkCheck => ({
    ok: false,
    code: 'LINK_INVALID',
    message: `This decision link ${why}; use the buttons of the latest notice, or decide in the inbox.`,
    ...(claimed ? { claimed } : {}),
  });
  if (!payload || !signature || extra !== undefined || !claimed) return invalid('is malformed');
  // The text is compared, not the bytes it decodes to: base64url decoding ignores padding, stray
  // characters and the last character's spare bits, so other texts decode to the same MAC.
  const given = Buffer.from(signature, 'utf8');
  const signed = secrets.some((secret) => {
    const expected = Buffer.from(mac(payload, secret), 'utf8');
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!signed) return invalid('has a signature this server does not accept (it was altered)');
  if (now >= claimed.expiresAt) {
    return {
      ok: false,
      code: 'LINK_EXPIRED',
      message: `This decision link expired at ${new Date(claimed.expiresAt).toISOString()}; decide in the inbox or wait for the next reminder.`,
      claims: claimed,
    };
  }
  return { ok: true, claims: claimed };
}

function mac(payload: string, secret: string): string {
  return createHmac('sha256', secret)
    .update(CONTEXT + payload)
    .digest('base64url');
}

interface WireClaims {
  a: string;
  r: string;
  c: string;
  f: string;
  k: 'approve' | 'decline';
  b: DecidedBy;
  e: number;
}

function toWire(claims: LinkClaims): WireClaims {
  const { agentId, runId, toolCallId, fingerprint, action, decidedBy, expiresAt } = claims;
  const by = { id: decidedBy.id, ...(decidedBy.roles ? { roles: decidedBy.roles } : {}) };
  return { a: agentId, r: runId, c: toolCallId, f: fingerprint, k: action, b: by, e: expiresAt };
}

function parseClaims(payload: string): LinkClaims | undefined {
  let wire: Partial<WireClaims>;
  try {
    wire = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<WireClaims>;
  } catch {
    return undefined;
  }
  if (!wire || typeof wire !== 'object') return undefined;
  const strings = [wire.a, wire.r, wire.c, wire.f];
  if (!strings.every((value) => typeof value === 'string' && value !== '')) return undefined;
  if (wire.k !== 'approve' && wire.k !== 'decline') return undefined;
  if (typeof wire.e !== 'number' || !Number.isFinite(wire.e)) return undefined;
  const by = wire.b;
  if (!by || typeof by.id !== 'string' || by.id === '') return undefined;
  if (
    by.roles !== undefined &&
    !(Array.isArray(by.roles) && by.roles.every((r) => typeof r === 'string'))
  ) {
    return undefined;
  }
  return {
    agentId: wire.a!,
    runId: wire.r!,
    toolCallId: wire.c!,
    fingerprint: wire.f!,
    action: wire.k,
    decidedBy: { id: by.id, ...(by.roles ? { roles: by.roles } : {}) },
    expiresAt: wire.e,
  };
}
