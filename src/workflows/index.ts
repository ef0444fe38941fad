/** Workflow entry point: the only file the worker bundles. Sandbox-safe code only. */
export { agentRun } from './agent-run.js';
export { agentThread } from './agent-thread.js';
export { agentDirectoryEntry } from './agent-directory.js';
export { grantsRegistry } from './grants-registry.js';
export { mcpPinsRegistry } from './mcp-pins-registry.js';
