/**
 * The signature both kinds of signed Tollgate URL share (decision links, MCP callbacks):
 * `<payload>.<signature>`, both base64url, the signature an HMAC-SHA256 over a context string
 * and the payload. The context names the kind and its version, so a token of one kind is never
 * accepted as the other.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** `wire` as JSON, base64url, with its signature. */
export function signToken(wire: object, secret: string, context: string): string {
  const payload = Buffer.from(JSON.stringify(wire)).toString('base64url');
  return `${payload}.${mac(payload, secret, context)}`;
}

/**
 * A token's payload, decoded but unverified (undefined when it is not `<payload>.<signature>` of
 * JSON), and whether one of `secrets` signed it (the first signs; the others are earlier ones
 * still accepted while they are rotated out).
 */
export function readToken(
  token: string,
  secrets: readonly string[],
  context: string,
): { wire: unknown; signed: boolean } | undefined {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  let wire: unknown;
  try {
    wire = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  // The text is compared, not the bytes it decodes to: base64url decoding ignores padding, stray
  // characters and the last character's spare bits, so other texts decode to the same MAC.
  const given = Buffer.from(signature, 'utf8');
  const signed = secrets.some((secret) => {
    const expected = Buffer.from(mac(payload, secret, context), 'utf8');
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  return { wire, signed };
}

function mac(payload: string, secret: string, context: string): string {
  return createHmac('sha256', secret)
    .update(context + payload)
    .digest('base64url');
}
