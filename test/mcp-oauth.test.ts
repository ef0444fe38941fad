import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Tollgate } from '../src/index.js';
import { closeMcpConnections, mcpTools } from '../src/mcp/index.js';
import { chunksOf, hostAgents, testAgent } from './support/harness.js';
import { callByPrompt, serverCalls, stateDir } from './support/mcp-fixtures.js';
import { startOAuthMcpServer, type OAuthMcpServer } from './support/oauth-mcp-server.js';

type DiscoveryState = Awaited<ReturnType<NonNullable<OAuthClientProvider['discoveryState']>>>;

/**
 * A worker-side OAuth provider that keeps everything in this process's memory, as a worker's
 * secret store would: its registration, tokens, PKCE verifier and what discovery found.
 */
class WorkerTokens implements OAuthClientProvider {
  readonly redirects: URL[] = [];
  private client: OAuthClientInformationMixed | undefined;
  private stored: OAuthTokens | undefined;
  private verifier = '';
  private discovery: DiscoveryState;
  get redirectUrl() {
    return 'http://127.0.0.1:1/oauth/callback';
  }
  get clientMetadata() {
    return { redirect_uris: [this.redirectUrl], client_name: 'tollgate-test' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(client: OAuthClientInformationMixed) {
    this.client = client;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.redirects.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: NonNullable<DiscoveryState>) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.stored = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
  }
}

/**
 * What a callback handler does: the user opens the last authorization URL and approves; the
 * authorization server sends the browser back with a code, which `auth()` exchanges.
 */
async function completeAuthorization(provider: WorkerTokens, serverUrl: string): Promise<void> {
  const page = await fetch(provider.redirects.at(-1)!, { redirect: 'manual' });
  const code = new URL(page.headers.get('location')!).searchParams.get('code')!;
  expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe('AUTHORIZED');
}

/** Every string in a history, payload bytes decoded as UTF-8. */
function historyText(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(historyText).join('\n');
  if (value && typeof value === 'object') return Object.values(value).map(historyText).join('\n');
  return String(value);
}

describe('OAuth for a Streamable HTTP MCP server (docs/mcp.md "OAuth")', () => {
  let server: OAuthMcpServer;
  let dir: string;
  let tollgate: Tollgate | undefined;

  beforeAll(async () => {
    dir = await stateDir('oauth');
    server = await startOAuthMcpServer(dir);
  });
  afterAll(async () => {
    await tollgate?.shutdown();
    await closeMcpConnections();
    await server?.close();
  });

  it('authorizes by code, refreshes an expired token, asks again once revoked, and no token reaches history', async () => {
    const provider = new WorkerTokens();
    const options = { name: 'secured', url: server.url, authProvider: provider };
    // No tokens: discovery (from the 401's resource metadata URL), registration, then the
    // provider is sent to authorize and mcpTools() refuses to start.
    await expect(mcpTools(options)).rejects.toMatchObject({
      code: 'MCP_AUTH_REQUIRED',
      message: expect.stringContaining('MCP server "secured"'),
    });
    expect(provider.redirects).toHaveLength(1);
    const clientId = provider.clientInformation()!.client_id;
    expect(provider.redirects[0]!.searchParams.get('client_id')).toBe(clientId);
    expect(clientId).toMatch(/^client-/);

    await completeAuthorization(provider, server.url);
    expect(server.grants.authorization_code).toBe(1);
    const tools = await mcpTools(options);
    tollgate = await hostAgents(
      [testAgent('mcp-oauth', Object.values(tools), callByPrompt).agent],
      'mcp-oauth',
    );
    const agent = tollgate.getAgent('mcp-oauth');
    const runs: string[] = [];
    const read = async () => {
      const done = await agent.generate('read it');
      runs.push(done.runId);
      return done;
    };

    expect((await read()).text).toBe('"contents of /tmp/a.txt"');
    expect(await serverCalls(dir, 'read_file')).toHaveLength(1);

    // The access token ends: the SDK refreshes it with the provider's refresh token.
    server.expireAccessTokens();
    expect((await read()).text).toBe('"contents of /tmp/a.txt"');
    expect(server.grants.refresh_token).toBe(1);
    expect(await serverCalls(dir, 'read_file')).toHaveLength(2);

    // Every token revoked: the gate cannot list the tools, so the call waits (as when a server
    // is down), with a note that says why; the provider was sent to authorize again.
    server.revokeAll();
    const waiting = await agent.generate('read it');
    runs.push(waiting.runId);
    expect(waiting.finishReason).toBe('suspended');
    const [gate] = await agent.getAuditTrail(waiting.runId);
    expect(gate).toMatchObject({
      type: 'gate',
      gated: true,
      note: expect.stringContaining('needs an OAuth authorization'),
    });
    expect(provider.redirects.length).toBeGreaterThan(1);
    // Approved before anyone authorized: the call fails MCP_AUTH_REQUIRED without running.
    const approved = await chunksOf(await agent.approveToolCall({ runId: waiting.runId }));
    expect(approved.find((chunk) => chunk.type === 'tool-error')?.payload).toMatchObject({
      toolName: 'read_file',
      error: expect.stringContaining('needs an OAuth authorization'),
    });
    expect(await serverCalls(dir, 'read_file')).toHaveLength(2);

    // The user authorizes again: the same worker's next call works.
    await completeAuthorization(provider, server.url);
    expect((await read()).text).toBe('"contents of /tmp/a.txt"');
    expect(await serverCalls(dir, 'read_file')).toHaveLength(3);

    const client = await tollgate.client();
    for (const runId of runs) {
      const text = historyText(await client.workflow.getHandle(runId).fetchHistory());
      // The check can see what a payload carries: the tool's output is there, no token is.
      expect(text).toContain('read_file');
      for (const token of server.issued) expect(text).not.toContain(token);
    }
    expect(server.issued.length).toBeGreaterThanOrEqual(6);
  }, 120_000);

  it('refuses an authProvider without a url', async () => {
    await expect(
      mcpTools({ command: 'node', authProvider: new WorkerTokens() }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('url') });
  });
});
