/**
 * The test MCP server (`mcp-test-server.ts`) behind OAuth, in the test's own process: one
 * node:http server is both the protected resource (`/mcp`) and its authorization server
 * (metadata, dynamic client registration, an authorization page that approves at once, PKCE code
 * exchange, refresh). Its resource metadata is served only at the URL its 401 names, so a client
 * finds it by the 401's `WWW-Authenticate` alone. Tokens can be expired or revoked on demand.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { buildServer } from './mcp-test-server.js';

const METADATA_PATH = '/oauth/resource-metadata';

interface PendingCode {
  clientId: string;
  challenge: string;
  redirectUri: string;
}

/** A running OAuth-protected MCP server; `close()` when done. */
export interface OAuthMcpServer {
  /** The MCP endpoint (`.../mcp`). */
  url: string;
  /** Every access and refresh token it ever issued. */
  issued: string[];
  /** Grants answered at the token endpoint, by `grant_type`. */
  grants: { authorization_code: number; refresh_token: number };
  /** Access tokens stop working (as at the end of their lifetime); refresh tokens still do. */
  expireAccessTokens(): void;
  /** Every token stops working, refresh tokens too: only a new authorization helps. */
  revokeAll(): void;
  close(): Promise<void>;
}

export async function startOAuthMcpServer(stateDir: string): Promise<OAuthMcpServer> {
  const clients = new Set<string>();
  const codes = new Map<string, PendingCode>();
  const access = new Set<string>();
  const refresh = new Map<string, string>();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const issued: string[] = [];
  const grants = { authorization_code: 0, refresh_token: 0 };
  let base = '';

  const newTokens = (clientId: string) => {
    const accessToken = `at-${randomUUID()}`;
    const refreshToken = `rt-${randomUUID()}`;
    access.add(accessToken);
    refresh.set(refreshToken, clientId);
    issued.push(accessToken, refreshToken);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: refreshToken,
    };
  };

  const token = async (req: IncomingMessage, res: ServerResponse) => {
    const form = new URLSearchParams(await body(req));
    const clientId = form.get('client_id') ?? '';
    if (!clients.has(clientId)) return json(res, 401, { error: 'invalid_client' });
    if (form.get('grant_type') === 'authorization_code') {
      const pending = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const wrong = pending?.redirectUri !== form.get('redirect_uri');
      if (!pending || wrong || pending.clientId !== clientId || pending.challenge !== challenge) {
        return json(res, 400, { error: 'invalid_grant' });
      }
      grants.authorization_code++;
      return json(res, 200, newTokens(clientId));
    }
    if (form.get('grant_type') === 'refresh_token') {
      const given = form.get('refresh_token') ?? '';
      if (refresh.get(given) !== clientId) return json(res, 400, { error: 'invalid_grant' });
      refresh.delete(given);
      grants.refresh_token++;
      return json(res, 200, newTokens(clientId));
    }
    return json(res, 400, { error: 'unsupported_grant_type' });
  };

  const authorize = (url: URL, res: ServerResponse) => {
    const clientId = url.searchParams.get('client_id') ?? '';
    const redirectUri = url.searchParams.get('redirect_uri') ?? '';
    const challenge = url.searchParams.get('code_challenge') ?? '';
    if (!clients.has(clientId) || url.searchParams.get('code_challenge_method') !== 'S256') {
      return json(res, 400, { error: 'invalid_request' });
    }
    // The user approves at once: back to the client with a code.
    const code = randomUUID();
    codes.set(code, { clientId, challenge, redirectUri });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    const state = url.searchParams.get('state');
    if (state !== null) back.searchParams.set('state', state);
    res.writeHead(302, { location: back.href }).end();
  };

  const mcp = async (req: IncomingMessage, res: ServerResponse) => {
    const given = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!given || !access.has(given)) {
      const challenge = `Bearer error="invalid_token", resource_metadata="${base}${METADATA_PATH}"`;
      return void res.writeHead(401, { 'www-authenticate': challenge }).end();
    }
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      if (id !== undefined) return void res.writeHead(404).end();
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await buildServer(stateDir).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  };

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/mcp') return mcp(req, res);
    if (url.pathname === METADATA_PATH) {
      return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base] });
    }
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
      });
    }
    if (url.pathname === '/register' && req.method === 'POST') {
      const metadata = JSON.parse(await body(req)) as Record<string, unknown>;
      const clientId = `client-${randomUUID()}`;
      clients.add(clientId);
      return json(res, 201, {
        ...metadata,
        client_id: clientId,
        token_endpoint_auth_method: 'none',
      });
    }
    if (url.pathname === '/authorize') return authorize(url, res);
    if (url.pathname === '/token' && req.method === 'POST') return token(req, res);
    res.writeHead(404).end();
  };

  const http = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      console.error('oauth-mcp-server:', error);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    issued,
    grants,
    expireAccessTokens: () => access.clear(),
    revokeAll: () => {
      access.clear();
      refresh.clear();
    },
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
