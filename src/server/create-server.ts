import { serve, type ServerType } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import {
  AGENTS_ROUTE,
  API_PREFIX,
  APPROVALS_ROUTE,
  DECISIONS_ROUTE,
  type AgentsResponse,
  HEALTH_ROUTE,
  type ErrorBody,
  type HealthResponse,
} from '../common/http-api.js';
import { TollgateError } from '../common/errors.js';
import { mayUseAgent, requireAction } from '../common/scope.js';
import type { Tollgate } from '../runtime.js';
import { listApprovals } from './approvals.js';
import { bearerAuth, type AuthConfig, type ServerEnv } from './auth.js';
import { TokenSource } from './token-source.js';
import { consoleErrorLogger, errorAnswer, type ErrorLogger } from './errors.js';
import { health } from './health.js';
import { boundOutages, requireJson, securityHeaders } from './http-guards.js';
import { serveInboxSdk } from './inbox-sdk.js';
import { registerAgentRoutes } from './routes-agents.js';
import { approvalsQuery, decisionsBody } from './schemas.js';
import { readBody, readQuery } from './validation.js';
import { decideBatch } from './batch-decisions.js';
import { LINKS_PREFIX, registerLinkRoutes } from './links.js';
import { LinkRefusals, type LinkRefusalOptions, type LinkRefusalReport } from './link-refusals.js';
import { CHANNELS_SECRET_ENV, signingSecrets } from '../channels/option-checks.js';
import { MCP_CALLBACKS_PREFIX } from '../common/mcp-callback.js';
import { registerMcpCallbackRoutes } from './mcp-callbacks.js';
import { registerChatRoutes } from './chat/chat-handler.js';
import { registerAgUiRoutes } from './ag-ui/ag-ui-handler.js';
import { registerGrantRoutes } from './routes-grants.js';
import { registerLivePolicyRoutes } from './routes-live-policies.js';
import { registerA2ARoutes, type A2AServerOptions } from './a2a/a2a-routes.js';
import { agentCallerLimits } from './agent-callers.js';
import { registerSlackRoutes, type SlackActionsOptions } from './slack-actions.js';

/** Options of `createTollgateServer`. */
export interface TollgateServerOptions {
  /** The runtime whose client starts and steers runs; it need not host any agent. */
  tollgate: Tollgate;
  /**
   * Bearer tokens accepted on every `/api` route but `/api/health`. With `tokensFile` (as
   * `loadAuthConfig` returns it) the file is read again whenever it changes (docs/production.md).
   */
  auth: AuthConfig;
  /** Largest request body accepted, bytes; larger ones get 413. Default 1 MiB. */
  bodyLimitBytes?: number;
  /**
   * A directory served as the approval inbox: its `index.html` at `/`, its files at `/inbox/*`,
   * and the compiled client SDK, which the page imports, at `/inbox/lib/*`.
   */
  inbox?: { root: string };
  /** Where errors hidden from callers (answered as `INTERNAL`) are reported. Default `console.error`. */
  logError?: ErrorLogger;
  /**
   * How long a request keeps retrying a Temporal call while the server is unreachable before it
   * is answered 503 `TEMPORAL_UNAVAILABLE`, ms. Default 5000 (the SDK alone retries ≈ 20 s).
   */
  outageTimeoutMs?: number;
  /**
   * Serves the signed Approve / Decline links of chat notices at `/links/<token>`
   * (docs/channels.md) and the MCP callback URLs at `/callbacks/mcp/<token>` (docs/mcp.md "URL
   * mode"). `signingSecret`: the workers' `channels.signingSecret`, or several (the first
   * current, the rest still accepted while rotated out). Default: env
   * `TOLLGATE_CHANNELS_SECRET`; without either, neither route is served.
   */
  channels?: { signingSecret?: string | string[]; refusals?: LinkRefusalOptions };
  /** Serves these agents over A2A (docs/a2a.md). Default: no A2A routes. */
  a2a?: A2AServerOptions;
  /**
   * Serves `POST /slack/actions`, where a Slack app's buttons decide (docs/slack.md): the app's
   * signing secret, its bot token, and which Slack user decides as whom. Default: no such route.
   */
  slack?: SlackActionsOptions;
}

/** Where `listen` binds. */
export interface ListenOptions {
  /** TCP port; 0 picks a free one. Default 8787. */
  port?: number;
  /** Default `127.0.0.1`: reachable from this machine only. */
  hostname?: string;
}

/** A listening server. */
export interface ListeningServer {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** Stops accepting connections and ends open ones (streams included). */
  close(): Promise<void>;
}

export interface TollgateServer {
  /** The Hono app: mount it elsewhere or call `app.fetch(request)` directly. */
  app: Hono<ServerEnv>;
  listen(options?: ListenOptions): Promise<ListeningServer>;
  /** What `/links` refused since the server started: counts, 429s and the latest refusals. */
  linkRefusals(): LinkRefusalReport;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const DEFAULT_OUTAGE_TIMEOUT_MS = 5000;

/** Builds the HTTP API of `common/http-api.ts` over a Tollgate runtime. */
export function createTollgateServer(options: TollgateServerOptions): TollgateServer {
  const { tollgate } = options;
  const log = options.logError ?? consoleErrorLogger;
  const maxSize = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const app = new Hono<ServerEnv>();

  app.use('*', securityHeaders());
  // Registered before the auth middleware, so load balancers can probe without a token.
  app.get(API_PREFIX + HEALTH_ROUTE, async (c) => {
    const body: HealthResponse = await health(tollgate);
    return c.json(body, body.ok ? 200 : 503);
  });
  const tokens = new TokenSource(options.auth, (error) => {
    if (error) log(error, 'reading the tokens file (every request is refused until it is fixed)');
  });
  app.use(`${API_PREFIX}/*`, bearerAuth(tokens));
  app.use(`${API_PREFIX}/*`, requireJson());
  app.use(`${API_PREFIX}/*`, boundOutages(outageTimeoutOf(options)));
  app.use(
    `${API_PREFIX}/*`,
    bodyLimit({
      maxSize,
      onError: (c) => {
        const body: ErrorBody = {
          error: {
            code: 'PAYLOAD_TOO_LARGE',
            message: `The request body is larger than ${maxSize} bytes.`,
          },
        };
        return c.json(body, 413);
      },
    }),
  );
  app.use(`${API_PREFIX}/*`, agentCallerLimits(tollgate));
  // The directory, as far as the token's scope reaches: agents it may not use are not listed.
  app.get(API_PREFIX + AGENTS_ROUTE, async (c) => {
    const scope = c.get('scope');
    requireAction(scope, 'read');
    const agents = await tollgate.listAgents();
    const body: AgentsResponse = { agents: agents.filter((a) => mayUseAgent(scope, a.agentId)) };
    return c.json(body);
  });
  registerAgentRoutes(app, tollgate, log);
  app.post(API_PREFIX + DECISIONS_ROUTE, async (c) => {
    const { decisions } = await readBody(c, decisionsBody);
    return c.json(await decideBatch(tollgate, decisions, c.get('identity'), c.get('scope'), log));
  });
  registerChatRoutes(app, tollgate, log);
  registerAgUiRoutes(app, tollgate, log);
  registerGrantRoutes(app, tollgate);
  registerLivePolicyRoutes(app, tollgate);
  app.get(API_PREFIX + APPROVALS_ROUTE, async (c) =>
    c.json(await listApprovals(tollgate, readQuery(c, approvalsQuery), c.get('scope'))),
  );
  if (options.a2a) registerA2ARoutes(app, tollgate, options.a2a, log);
  if (options.inbox) serveInbox(app, options.inbox.root);
  const secrets = linkSecretsOf(options);
  const refusals = new LinkRefusals(options.channels?.refusals);
  if (secrets) {
    app.use(`${LINKS_PREFIX}/*`, boundOutages(outageTimeoutOf(options)));
    registerLinkRoutes(app, { tollgate, secrets, refusals, log, tokens });
    app.use(`${MCP_CALLBACKS_PREFIX}/*`, boundOutages(outageTimeoutOf(options)));
    registerMcpCallbackRoutes(app, { tollgate, secrets, refusals, log });
  }
  if (options.slack) {
    app.use('/slack/*', boundOutages(outageTimeoutOf(options)));
    registerSlackRoutes(app, tollgate, options.slack, log);
  }

  app.notFound((c) => {
    const body: ErrorBody = {
      error: { code: 'NOT_FOUND', message: `No route ${c.req.method} ${c.req.path}.` },
    };
    return c.json(body, 404);
  });
  app.onError((error, c) => {
    const { status, body } = errorAnswer(error, log, `${c.req.method} ${c.req.path}`);
    return c.json(body, status);
  });
  return {
    app,
    listen: (listenOptions) => listen(app, listenOptions),
    linkRefusals: () => refusals.snapshot(),
  };
}

function linkSecretsOf(options: TollgateServerOptions): string[] | undefined {
  const given = options.channels?.signingSecret;
  if (given === undefined && !process.env[CHANNELS_SECRET_ENV]) return undefined;
  return signingSecrets(given, "The server's channels");
}

function outageTimeoutOf(options: TollgateServerOptions): number {
  const ms = options.outageTimeoutMs ?? DEFAULT_OUTAGE_TIMEOUT_MS;
  if (typeof ms === 'number' && Number.isFinite(ms) && ms > 0) return ms;
  throw new TollgateError(
    'INVALID_OPTIONS',
    `outageTimeoutMs must be a positive number of milliseconds, not ${String(ms)}.`,
  );
}

function serveInbox(app: Hono<ServerEnv>, root: string): void {
  app.get('/', serveStatic({ root, path: 'index.html' }));
  app.get('/inbox', serveStatic({ root, path: 'index.html' }));
  serveInboxSdk(app);
  app.get(
    '/inbox/*',
    serveStatic({ root, rewriteRequestPath: (path) => path.slice('/inbox'.length) || '/' }),
  );
}

function listen(app: Hono<ServerEnv>, options: ListenOptions = {}): Promise<ListeningServer> {
  const { port = 8787, hostname = '127.0.0.1' } = options;
  return new Promise((resolve, reject) => {
    const server: ServerType = serve({ fetch: app.fetch, port, hostname }, (info) => {
      server.off('error', reject);
      const host = info.address.includes(':') ? `[${info.address}]` : info.address;
      resolve({ url: `http://${host}:${info.port}`, close: () => close(server) });
    });
    server.once('error', reject);
  });
}

function close(server: ServerType): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // Open SSE responses would keep `close` waiting until their runs stop; end them now.
    if ('closeAllConnections' in server) server.closeAllConnections();
  });
}
