import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TollgateError } from '../common/errors.js';
import type { ApprovalPolicy } from '../definitions/approval-policy.js';
import type { Tool, ToolRetryOptions } from '../definitions/create-tool.js';
import type { McpToolsChangeHandler } from './mcp-list-changed.js';

/** How to reach an MCP server: give exactly one of `command`, `url` or `transport`. */
export interface McpConnectionOptions {
  /** Starts the server as a child process and talks to it over stdio (e.g. `'npx'`). */
  command?: string;
  /** Arguments of `command`. */
  args?: string[];
  /** Environment of `command`, added to the SDK's safe defaults (PATH, HOME...). */
  env?: Record<string, string>;
  /** Working directory of `command`. Default: the worker's. */
  cwd?: string;
  /** Where the child's stderr goes. Default `'inherit'` (the worker's stderr). */
  stderr?: 'inherit' | 'ignore' | 'pipe';
  /** A Streamable HTTP endpoint, e.g. `http://localhost:3000/mcp`. */
  url?: string | URL;
  /** Headers of every HTTP request to `url` (e.g. `Authorization`). */
  headers?: Record<string, string>;
  /**
   * OAuth for the Streamable HTTP server at `url`: the SDK's client auth provider, which holds
   * the client's registration and tokens and refreshes them (docs/mcp.md "OAuth"). It lives on the
   * worker: its tokens are never in an activity's input or result, so never in a run's history.
   * Without tokens, connecting starts its authorization (`redirectToAuthorization`) and fails with
   * `MCP_AUTH_REQUIRED`.
   */
  authProvider?: OAuthClientProvider;
  /** Any other transport of the SDK: called once per connection, so it must build a new one. */
  transport?: () => Transport;
}

/** Per-tool settings, by the tool's name on the MCP server. */
export interface McpToolOverrides {
  /**
   * Replaces the gate the annotations give: `true` gates every call, `false` none, a function
   * decides per call. A changed definition is gated (or refused) whatever this says.
   */
  requireApproval?: Tool['requireApproval'];
  /** Deadline, reminders, approvers and quorum of the tool's gated calls (SPEC §10). */
  approval?: ApprovalPolicy;
  /** Limit of one call, ms. Default: `McpToolsOptions.timeoutMs`. */
  timeoutMs?: number;
  /**
   * Declares calling the tool again safe: a call that timed out or whose worker died is then
   * retried. Without it, a call sent to the server is never sent again (`MCP_TOOL_TIMEOUT`,
   * `TOOL_ATTEMPT_LOST`).
   */
  retry?: ToolRetryOptions;
}

/** Options of `mcpTools()`. */
export interface McpToolsOptions extends McpConnectionOptions {
  /**
   * The server's name in messages, notes and audit entries. Default: the command's base name or
   * the URL's host.
   */
  name?: string;
  /**
   * Put before each tool's name to make its key in `tools` (e.g. `'github_'`); characters models
   * reject become `_`. Default `''`.
   */
  prefix?: string;
  /** Only these tools (names on the server). Default: all the server lists. */
  include?: string[];
  /**
   * The gate of every tool, instead of its annotations; `tools[name].requireApproval` wins.
   * Default: from the annotations (see docs/mcp.md).
   */
  requireApproval?: Tool['requireApproval'];
  /** Per-tool settings, by the tool's name on the server. */
  tools?: Record<string, McpToolOverrides>;
  /**
   * What happens to a call of a tool whose name, description, input schema or annotations
   * differ from those pinned when `mcpTools()` ran: `'gate'` (default) waits for approval, with
   * the change in the approval request and the audit; `'refuse'` fails the call without running
   * it, with the change in the audit and the tool error.
   */
  onDrift?: 'gate' | 'refuse';
  /**
   * Fingerprints to pin instead of those read at definition time, by tool name (e.g. saved from
   * `tools[key].mcp.fingerprint` of an earlier deploy), so a definition that changed while no
   * worker ran is caught too.
   */
  pinned?: Record<string, string>;
  /**
   * Limit of one call, ms; progress notifications do not extend it. The attempt's activity gets
   * 5 s more, so the call's own timeout ends it. Default 300000 (5 minutes).
   */
  timeoutMs?: number;
  /** An idle pooled connection is closed after this long, ms. Default 30000. */
  idleTimeoutMs?: number;
  /**
   * Called each time the server's `notifications/tools/list_changed` (received on any open
   * connection) made the worker list the tools again and check them against their pins, with
   * the tools that drifted. Calls are judged as always; this only tells you at once. Default:
   * a console warning per drifted tool.
   */
  onToolsChanged?: McpToolsChangeHandler;
}

/** Checks the options; throws `INVALID_OPTIONS` naming the bad field. */
export function checkMcpOptions(options: McpToolsOptions): void {
  const given = (['command', 'url', 'transport'] as const).filter(
    (key) => options?.[key] !== undefined,
  );
  if (given.length !== 1) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `mcpTools() needs exactly one of command, url or transport, not ${given.length === 0 ? 'none' : given.join(' and ')}.`,
    );
  }
  if (options.onDrift !== undefined && options.onDrift !== 'gate' && options.onDrift !== 'refuse') {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `mcpTools(): onDrift must be 'gate' or 'refuse', not ${JSON.stringify(options.onDrift)}.`,
    );
  }
  if (options.onToolsChanged !== undefined && typeof options.onToolsChanged !== 'function') {
    throw new TollgateError(
      'INVALID_OPTIONS',
      'mcpTools(): onToolsChanged must be a function that takes the re-check of the tools.',
    );
  }
  if (options.authProvider !== undefined && options.url === undefined) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      'mcpTools(): authProvider goes with url (a Streamable HTTP server); give the OAuth provider to your own transport otherwise.',
    );
  }
  if (options.transport !== undefined && typeof options.transport !== 'function') {
    throw new TollgateError(
      'INVALID_OPTIONS',
      'mcpTools(): transport must be a function that builds a new transport for each connection.',
    );
  }
}

/** The server's name in messages: `name`, else the command's base name or the URL's host. */
export function serverLabel(options: McpToolsOptions): string {
  if (options.name) return options.name;
  if (options.command) return options.command.split(/[\\/]/).at(-1) ?? options.command;
  if (options.url) {
    try {
      return new URL(options.url).host;
    } catch {
      return String(options.url);
    }
  }
  return 'mcp';
}
