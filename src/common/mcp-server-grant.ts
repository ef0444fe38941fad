/**
 * Grants for every tool of one MCP server (docs/grants.md "Every tool of an MCP server"). Such a
 * grant is kept under a tool name no tool can have (`mcp:<server>/*`), so code that matches
 * grants by tool name never matches it to a call; the worker's grant lookup expands it into one
 * grant per tool of that server, each bound to the tool's stored pin. Pure.
 */
import type { StoredPin } from './mcp-pins.js';
import { canonicalJson } from './json.js';
import { sha256Hex } from './sha256.js';

const PREFIX = 'mcp:';
const SUFFIX = '/*';

/** The tool name a grant for every tool of `server` is kept under. */
export function serverGrantToolName(server: string): string {
  return `${PREFIX}${server}${SUFFIX}`;
}

/** The MCP server a grant covers every tool of; undefined for a grant of one tool. */
export function serverOfGrant(grant: { toolName: string }): string | undefined {
  const { toolName } = grant;
  if (!toolName.startsWith(PREFIX) || !toolName.endsWith(SUFFIX)) return undefined;
  const server = toolName.slice(PREFIX.length, -SUFFIX.length);
  return server === '' ? undefined : server;
}

/**
 * What a server grant is bound to (its `definition`): the hex SHA-256 of the server's stored pins
 * (tool name to fingerprint). Any re-pin, and any tool pinned after the grant was given, changes
 * it, so the grant then covers nothing: it never reaches a definition its granter did not see.
 */
export function pinsDigest(pins: Record<string, StoredPin>): string {
  const fingerprints = Object.fromEntries(
    Object.entries(pins).map(([name, pin]) => [name, pin.fingerprint]),
  );
  return sha256Hex(canonicalJson(fingerprints));
}
