/**
 * MCP callback URLs (docs/mcp.md "URL mode"): what binds one to a wait, where the server serves
 * them, and how it answers. Pure, shared by the worker (which makes them) and the server.
 */
/** The server's route of the callbacks: `<publicUrl>/callbacks/mcp/<token>`. */
export const MCP_CALLBACKS_PREFIX = '/callbacks/mcp';

/** The `_meta` key of `tools/call` that carries the call's callback URL to the MCP server. */
export const MCP_CALLBACK_META_KEY = 'tollgate/callbackUrl';

/** What binds a callback URL to one wait of a call, besides the run and the call. */
export interface McpCallbackBinding {
  /** The MCP server's name (`mcpTools({ name })`): the answer is given as `mcp:<server>`. */
  server: string;
  /**
   * How many elicitations of the call were answered when the URL was made: it answers only the
   * wait whose payload has that many `answered`, so the URL of an earlier wait of the same call
   * never answers a later one.
   */
  answered: number;
  /** The server's id of the elicitation; absent in the URL sent with `tools/call` (not known yet). */
  elicitationId?: string;
}

/** The server's answer to a callback that changed nothing or answered the wait (HTTP 200). */
export interface McpCallbackAnswer {
  ok: true;
  /**
   * `'answered'`: the wait was answered with `accept` now; `'not-waiting'`: the call waits no
   * more (answered before, by this URL or otherwise, or its run ended), nothing changed.
   */
  outcome: 'answered' | 'not-waiting';
}
