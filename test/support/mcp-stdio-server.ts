/**
 * The test MCP server over stdio (see `mcp-test-server.ts`); exits when its client goes away.
 * Env: MCP_STATE_DIR.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildServer } from './mcp-test-server.js';

const stateDir = process.env.MCP_STATE_DIR;
if (!stateDir) throw new Error('mcp-stdio-server: MCP_STATE_DIR is not set.');

const server = buildServer(stateDir, (message) =>
  process.stdout.write(JSON.stringify(message) + '\n'),
);
await server.connect(new StdioServerTransport());
process.stdin.on('close', () => process.exit(0));
process.stdin.on('end', () => process.exit(0));
