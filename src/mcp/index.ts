/** MCP servers' tools as Tollgate tools: `import { mcpTools } from 'tollgate/mcp'`. */
export { mcpTools, type McpTool } from './mcp-tools.js';
export type { McpToolsOptions, McpToolOverrides, McpConnectionOptions } from './mcp-options.js';
export type { McpElicitationPayload, ElicitationAnswer } from './mcp-elicitation.js';
export {
  elicitationReply,
  ELICITATION_REPLY_KEY,
  type McpElicitationAction,
  type McpElicitationReply,
} from '../common/mcp-elicitation-reply.js';
export { closeMcpConnections } from './mcp-pool.js';
export type { McpToolsChange, McpToolsChangeHandler } from './mcp-list-changed.js';
