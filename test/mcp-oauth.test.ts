import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Tollgate } from '../src/index.js';
import { closeMcpConnections, mcpTools } from '../src/mcp/index.js';
import { hostAgents, testAgent } from './support/harness.js';
import { callByPrompt, HTTP_SERVER, serverCalls, stateDir } from './support/mcp-fixtures.js';

const TOKEN = 'worker-side-access-token-5f1c';

/** A worker-side OAuth provider: tokens in this process's memory only. */
class WorkerTokens implements OAuthClientProvider {
  readonly redirects: URL[] = [];
  constructor(private stored: OAuthTokens | undefined) {}
  get redirectUrl() {
    return 'http://127.0.0.1:1/oauth/callback';
  }
  get clientMetadata() {
    return { redirect_uris: [this.redirectUrl], client_name: 'tollgate-test' };
  }
  clientInformation(): OAuthClientInformationMixed {
    return { client_id: 'tollgate-test' };
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
  saveCodeVerifier() {}
  codeVerifier() {
    return 'verifier';
  }
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
  let server: ChildProcess;
  let url: string;
  let dir: string;
  let tollgate: Tollgate;

  beforeAll(async () => {
    dir = await stateDir('oauth');
    server = spawn(process.execPath, [HTTP_SERVER], {
      env: { ...process.env, MCP_STATE_DIR: dir, MCP_BEARER: TOKEN },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const port = await new Promise<string>((resolve, reject) => {
      server.stdout!.on('data', (data: Buffer) => {
        const found = /listening (\d+)/.exec(String(data));
        if (found) resolve(found[1]!);
      });
      server.once('exit', (code) => reject(new Error(`mcp-http-server exited (${code})`)));
    });
    url = `http://127.0.0.1:${port}/mcp`;
    const provider = new WorkerTokens({ access_token: TOKEN, token_type: 'Bearer' });
    const tools = await mcpTools({ name: 'secured', url, authProvider: provider });
    tollgate = await hostAgents(
      [testAgent('mcp-oauth', Object.values(tools), callByPrompt).agent],
      'mcp-oauth',
    );
  });
  afterAll(async () => {
    await tollgate?.shutdown();
    await closeMcpConnections();
    server?.kill();
  });

  it("calls the server with the provider's token, and the token never reaches the run's history", async () => {
    const done = await tollgate.getAgent('mcp-oauth').generate('read it');
    expect(done.text).toBe('"contents of /tmp/a.txt"');
    expect(await serverCalls(dir, 'read_file')).toHaveLength(1);
    const history = await (await tollgate.client()).workflow.getHandle(done.runId).fetchHistory();
    const text = historyText(history);
    // The check can see what a payload carries: the tool's output is there, the token is not.
    expect(text).toContain('contents of /tmp/a.txt');
    expect(text).not.toContain(TOKEN);
  });

  it('fails with MCP_AUTH_REQUIRED, after sending the provider to authorize, when it has no token', async () => {
    const empty = new WorkerTokens(undefined);
    await expect(mcpTools({ name: 'secured', url, authProvider: empty })).rejects.toMatchObject({
      code: 'MCP_AUTH_REQUIRED',
      message: expect.stringContaining('MCP server "secured"'),
    });
    expect(empty.redirects).toHaveLength(1);
    expect(empty.redirects[0]!.searchParams.get('client_id')).toBe('tollgate-test');
  });

  it('refuses an authProvider without a url', async () => {
    await expect(
      mcpTools({ command: 'node', authProvider: new WorkerTokens(undefined) }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('url') });
  });
});
