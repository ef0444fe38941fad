import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';
import { fileURLToPath } from 'node:url';
import type { ErrorBody } from '../common/http-api.js';
import type { ServerEnv } from './auth.js';

/** Where the inbox page imports the client SDK from, e.g. `/inbox/lib/http-client/index.js`. */
export const INBOX_SDK_PREFIX = '/inbox/lib';

/**
 * The compiled modules the client SDK (`http-client/index.js`) imports, and nothing else: the same
 * browser-safe set the SDK's import-graph test allows (no Temporal, Node, AI SDK or zod code).
 */
const SDK_MODULE = /^\/(?:http-client|common|stream)\/[a-z0-9-]+\.js$/;

/**
 * Serves the compiled client SDK to the inbox page, so the browser runs the same tested SSE
 * parser, stream and error classes as Node clients instead of a copy. The modules are read from
 * the compiled package itself (`dist/src`, next to this file's folder); their relative imports
 * (`../common/...`, `../stream/...`) resolve to other URLs under the same prefix.
 */
export function serveInboxSdk(app: Hono<ServerEnv>): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const files = serveStatic({
    root,
    rewriteRequestPath: (path) => path.slice(INBOX_SDK_PREFIX.length),
  });
  app.get(`${INBOX_SDK_PREFIX}/*`, async (c, next) => {
    if (SDK_MODULE.test(c.req.path.slice(INBOX_SDK_PREFIX.length))) {
      return (await files(c, next)) ?? c.res;
    }
    const body: ErrorBody = {
      error: { code: 'NOT_FOUND', message: `${c.req.path} is not a module of the client SDK.` },
    };
    return c.json(body, 404);
  });
}
