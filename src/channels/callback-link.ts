/**
 * Signed MCP callback URLs (docs/mcp.md "URL mode"): `<publicUrl>/callbacks/mcp/<token>`, a
 * token signed like a decision link (`signed-token.ts`, with a context of its own, so neither is
 * accepted as the other). Hitting it answers the call's URL-mode elicitation with `accept`.
 * Nothing is stored: the run takes one answer per wait, and the claims bind the token to one wait.
 */
import { MCP_CALLBACKS_PREFIX, type McpCallbackBinding } from '../common/mcp-callback.js';
import type { CheckedChannels } from './channel-options.js';
import { readToken, signToken } from './signed-token.js';

/** Which waiting call a callback answers. */
export interface CallbackClaims extends McpCallbackBinding {
  agentId: string;
  runId: string;
  toolCallId: string;
  /** Epoch ms after which the URL is refused (`LINK_EXPIRED`). */
  expiresAt: number;
}

export type CallbackCheck =
  | { ok: true; claims: CallbackClaims }
  | { ok: false; code: 'LINK_INVALID' | 'LINK_EXPIRED'; message: string; runId?: string };

/** Versioned, so a later format cannot be mistaken for this one. */
const CONTEXT = 'tollgate-mcp-callback.v1.';

/** The callback URL of `claims` on the server at `publicUrl`. */
export function callbackUrl(publicUrl: string, claims: CallbackClaims, secret: string): string {
  const { agentId, runId, toolCallId, server, answered, elicitationId, expiresAt } = claims;
  const wire: WireClaims = { a: agentId, r: runId, c: toolCallId, s: server, n: answered };
  if (elicitationId !== undefined) wire.i = elicitationId;
  wire.e = expiresAt;
  return `${publicUrl}${MCP_CALLBACKS_PREFIX}/${signToken(wire, secret, CONTEXT)}`;
}

/** Makes the callback URLs of one call. */
export type CallbackSigner = (
  call: Pick<CallbackClaims, 'agentId' | 'runId' | 'toolCallId'>,
) => (binding: McpCallbackBinding) => string;

/**
 * The worker's callback URLs: on its channels' `publicUrl`, signed with their signing secret,
 * valid for their `linkTtl`; none without channels or without a secret.
 */
export function callbackSigner(channels: CheckedChannels | undefined): CallbackSigner | undefined {
  if (!channels?.signingSecret) return undefined;
  const { publicUrl, signingSecret, linkTtlMs } = channels;
  return (call) => (binding) =>
    callbackUrl(
      publicUrl,
      { ...call, ...binding, expiresAt: Date.now() + linkTtlMs },
      signingSecret,
    );
}

/** Checks a callback token's signature with each secret, then its expiry against `now`. */
export function verifyCallback(
  token: string,
  secrets: readonly string[],
  now: number,
): CallbackCheck {
  const read = readToken(token, secrets, CONTEXT);
  const claimed = read ? parseClaims(read.wire) : undefined;
  if (!read || !claimed || !read.signed) {
    const why = !claimed ? 'is malformed' : 'has a signature this server does not accept';
    return {
      ok: false,
      code: 'LINK_INVALID',
      message: `This MCP callback URL ${why} (it was altered, or signed with another secret); nothing was answered: use the URL the call's suspend payload or its tools/call request carried.`,
      ...(claimed ? { runId: claimed.runId } : {}),
    };
  }
  if (now >= claimed.expiresAt) {
    return {
      ok: false,
      code: 'LINK_EXPIRED',
      message: `This MCP callback URL expired at ${new Date(claimed.expiresAt).toISOString()}; nothing was answered: answer the wait with elicitationReply('accept') on the run, or in the inbox.`,
      runId: claimed.runId,
    };
  }
  return { ok: true, claims: claimed };
}

interface WireClaims {
  a: string;
  r: string;
  c: string;
  s: string;
  n: number;
  i?: string;
  e?: number;
}

function parseClaims(decoded: unknown): CallbackClaims | undefined {
  if (!decoded || typeof decoded !== 'object') return undefined;
  const wire = decoded as Partial<WireClaims>;
  const strings = [wire.a, wire.r, wire.c, wire.s];
  if (!strings.every((value) => typeof value === 'string' && value !== '')) return undefined;
  if (!Number.isInteger(wire.n) || wire.n! < 0) return undefined;
  if (wire.i !== undefined && typeof wire.i !== 'string') return undefined;
  if (typeof wire.e !== 'number' || !Number.isFinite(wire.e)) return undefined;
  return {
    agentId: wire.a!,
    runId: wire.r!,
    toolCallId: wire.c!,
    server: wire.s!,
    answered: wire.n!,
    ...(wire.i !== undefined ? { elicitationId: wire.i } : {}),
    expiresAt: wire.e,
  };
}
