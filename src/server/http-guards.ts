/**
 * What the server tells browsers and caches about every answer, and what it requires of request
 * bodies before reading them. No CORS headers are ever sent: the API and the inbox are for pages
 * of the server's own origin; a browser refuses other origins' reads (and preflights).
 */
import type { MiddlewareHandler } from 'hono';
import { withOutageBudget } from '../temporal-client/connection.js';
import { API_PREFIX, type ErrorBody } from '../common/http-api.js';

/**
 * The inbox loads its own scripts, styles, icon and API answers and nothing else: no inline code,
 * no other origin, and no page may frame it (clickjacking of the Approve button).
 */
export const INBOX_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Sets on every answer, errors included: `nosniff`, no framing, no referrer and the inbox CSP;
 * on API answers also `Cache-Control: no-store`, so no cache keeps runs, approvals or errors.
 */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const headers = c.res.headers;
    headers.set('X-Content-Type-Options', 'nosniff');
    headers.set('X-Frame-Options', 'DENY');
    headers.set('Referrer-Policy', 'no-referrer');
    headers.set('Content-Security-Policy', INBOX_CSP);
    if (c.req.path === API_PREFIX || c.req.path.startsWith(`${API_PREFIX}/`)) {
      headers.set('Cache-Control', 'no-store');
    }
  };
}

const JSON_MEDIA_TYPE = /^application\/json\s*(?:;|$)/i;

/**
 * Refuses a request that carries a body (POST, PUT, PATCH) unless it is declared
 * `application/json` (a charset may follow), with 415 `UNSUPPORTED_MEDIA_TYPE`, before the body
 * is read. A `text/plain` or form body, which a page of another origin can send without a
 * preflight, is never parsed as JSON.
 */
export function requireJson(): MiddlewareHandler {
  return async (c, next) => {
    if (!['POST', 'PUT', 'PATCH'].includes(c.req.method)) return next();
    const type = c.req.header('content-type') ?? '';
    if (JSON_MEDIA_TYPE.test(type)) return next();
    const body: ErrorBody = {
      error: {
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: `The request body is declared ${type ? `"${type}"` : 'without a Content-Type'}; send JSON with Content-Type: application/json.`,
      },
    };
    return c.json(body, 415);
  };
}

/**
 * Bounds how long the request's Temporal calls retry an unreachable server: after `ms` each one
 * fails, and the request is answered 503 `TEMPORAL_UNAVAILABLE` instead of waiting ≈ 20 s.
 */
export function boundOutages(ms: number): MiddlewareHandler {
  return (_c, next) => withOutageBudget(ms, next);
}
