import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { listAllTools, liveDefinition } from './mcp-definition.js';
import { pinOf, type PinnedTool } from './mcp-pin-store.js';

/** What a re-check after the server's `notifications/tools/list_changed` found. */
export interface McpToolsChange {
  /** The server's name (`McpToolsOptions.name`). */
  server: string;
  /** The tools of this `mcpTools()` that no longer match their pin, with the change in words. */
  drifted: Array<{ tool: string; drift: string }>;
  /** Set when the tools could not be listed again; `drifted` is then empty. */
  error?: string;
}

/** Called with each re-check; the default warns on the worker's console when a tool drifted. */
export type McpToolsChangeHandler = (change: McpToolsChange) => void;

/**
 * The pool's `tools/list_changed` listener for one `mcpTools()`: re-checks at once, one re-check
 * at a time; notifications that arrive during one are folded into a single next one, so a
 * chatty server cannot make the worker list its tools without end.
 */
export function toolListWatcher(
  server: string,
  tools: PinnedTool[],
  report: McpToolsChangeHandler,
): (client: Client) => void {
  let running = false;
  let again: Client | undefined;
  const run = async (client: Client): Promise<void> => {
    running = true;
    try {
      await recheckPins(client, server, tools, report);
    } finally {
      running = false;
      const next = again;
      again = undefined;
      if (next) void run(next);
    }
  };
  return (client) => {
    if (running) again = client;
    else void run(client);
  };
}

/**
 * Re-checks every tool of one `mcpTools()` against the pin that holds (the stored one, else the
 * worker's) as soon as the server says its tool list changed, over the connection that said so,
 * and reports the result. Calls are judged as always (every gate and every execution lists the
 * tools again); this tells the operator at once, not at the next call.
 */
export async function recheckPins(
  client: Client,
  server: string,
  tools: PinnedTool[],
  report: McpToolsChangeHandler,
): Promise<void> {
  let change: McpToolsChange;
  try {
    const listed = await listAllTools(client, server);
    const drifted: McpToolsChange['drifted'] = [];
    for (const tool of tools) {
      const { drift } = liveDefinition(server, await pinOf(tool), listed);
      if (drift !== undefined) drifted.push({ tool: tool.pinned.definition.name, drift });
    }
    change = { server, drifted };
  } catch (error) {
    change = { server, drifted: [], error: error instanceof Error ? error.message : String(error) };
  }
  try {
    report(change);
  } catch (error) {
    console.warn(`[tollgate] onToolsChanged of MCP server "${server}" threw:`, error);
  }
}

/** The default `onToolsChanged`: one warning per drifted tool, and one when the re-list failed. */
export function warnOnDrift(change: McpToolsChange): void {
  if (change.error !== undefined) {
    console.warn(
      `[tollgate] MCP server "${change.server}" changed its tools, and they could not be checked again: ${change.error}`,
    );
  }
  for (const { drift } of change.drifted) console.warn(`[tollgate] ${drift}`);
}
