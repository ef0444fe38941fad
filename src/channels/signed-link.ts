/**
 * Signed decision links (docs/channels.md): `<payload>.<signature>`, both base64url, the
 * signature an HMAC-SHA256 over the payload with the channels' signing secret. The payload
 * names the run, the call, its fingerprint, approve or decline, who decides and until when.
 * Nothing is stored: a link is single-use because the run takes one decision per call.
 */
import type { DecidedBy } from '../common/run-types.js';
import { readToken, signToken } from './signed-token.js';

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
  return signToken(toWire(claims), secret, CONTEXT);
}

/**
 * Checks a link's signature with each secret (the first signs; the others are earlier ones
 * still accepted while they are rotated out), then its expiry against `now`.
 */
export function verifyLink(token: string, secrets: readonly string[], now: number): LinkCheck {
  const read = readToken(token, secrets, CONTEXT);
  const claimed = read ? parseClaims(read.wire) : undefined;
  const invalid = (why: string): LinkCheck => ({
    ok: false,
    code: 'LINK_INVALID',
    message: `This decision link ${why}; use the buttons of the latest notice, or decide in the inbox.`,
    ...(claimed ? { claimed } : {}),
  });
  if (!read || !claimed) return invalid('is malformed');
  if (!read.signed) return invalid('has a signature this server does not accept (it was altered)');
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

function parseClaims(decoded: unknown): LinkClaims | undefined {
  if (!decoded || typeof decoded !== 'object') return undefined;
  const wire = decoded as Partial<WireClaims>;
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
