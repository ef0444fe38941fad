/** MCP servers' tools as Tollgate tools: `import { mcpTools } from 'tollgate/mcp'`. */
export { mcpTools, type McpTool } from './mcp-tools.js';
export type { McpToolsOptions, McpToolOverrides, McpConnectionOptions } from './mcp-options.js';
export type { McpElicitationPayload } from './mcp-elicitation.js';
export { closeMcpConnections } from './mcp-pool.js';
