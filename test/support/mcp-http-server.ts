/**
 * The test MCP server over Streamable HTTP (see `mcp-test-server.ts`), one session per client.
 * Prints `listening <port>` once it accepts connections. Env: MCP_STATE_DIR, MCP_BEARER.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { buildServer } from './mcp-test-server.js';

const stateDir = process.env.MCP_STATE_DIR;
if (!stateDir) throw new Error('mcp-http-server: MCP_STATE_DIR is not set.');

const sessions = new Map<string, StreamableHTTPServerTransport>();

/** With `MCP_BEARER` set, every request must carry that bearer token (an OAuth resource server). */
const bearer = process.env.MCP_BEARER;

const http = createServer((req, res) => {
  void (async () => {
    if (bearer !== undefined) {
      // OAuth discovery documents are not served: a client falls back to the default endpoints.
      if (!req.url?.startsWith('/mcp')) return void res.writeHead(404).end();
      if (req.headers.authorization !== `Bearer ${bearer}`) {
        res.writeHead(401, { 'WWW-Authenticate': 'Bearer' }).end();
        return;
      }
    }
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      if (id !== undefined) {
        res.writeHead(404).end();
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await buildServer(stateDir).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  })().catch((error: unknown) => {
    console.error('mcp-http-server:', error);
    if (!res.headersSent) res.writeHead(500).end();
  });
});
http.listen(0, '127.0.0.1', () => {
  const address = http.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => process.exit(0));
