/** Remote A2A agents as Tollgate tools: `import { a2aTool } from 'tollgate/a2a'` (docs/a2a.md). */
export {
  a2aTool,
  type A2AToolOptions,
  type A2AInputRequired,
  type A2AReplyData,
  type A2AToolResult,
} from './a2a-tool.js';
export type { A2AHeaders } from './a2a-connection.js';
