/**
 * Grants for every tool of one MCP server (docs/grants.md "Every tool of an MCP server"). Such a
 * grant is kept under a tool name no tool can have (`mcp:<server>/*`), so code that matches
 * grants by tool name never matches it to a call; the worker's grant lookup expands it into one
 * grant per tool of that server, each bound to the tool's stored pin. Pure.
 */
import type { Grant } from './grant-types.js';
import type { McpPinsState, StoredPin } from './mcp-pins.js';
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

/** Where an agent's tool comes from when it is an MCP server's: the server and the tool's name there. */
export interface McpToolSource {
  /** The server's name (`mcpTools({ name })`). */
  server: string;
  /** The tool's name on the server. */
  name: string;
}

/**
 * A server grant as grants of each of `toolNames` (an agent's tool keys) that comes from its
 * server (`sourceOf`), each bound to the tool's stored pin (the gate's definition must be it);
 * none once the server's pins are not those the grant was given for. The one judge of a server
 * grant: the worker's gate and a release both turn it into these grants, then match each call
 * with `grantCovers` as any grant.
 */
export function grantsPerTool(
  grant: Grant,
  toolNames: readonly string[],
  sourceOf: (toolName: string) => McpToolSource | undefined,
  pins: McpPinsState | undefined,
): Grant[] {
  const server = serverOfGrant(grant);
  if (server === undefined || !pins || pinsDigest(pins.pins) !== grant.definition) return [];
  const grants: Grant[] = [];
  for (const toolName of toolNames) {
    const source = sourceOf(toolName);
    const pin = source && source.server === server ? pins.pins[source.name] : undefined;
    if (pin) grants.push({ ...grant, toolName, definition: pin.fingerprint });
  }
  return grants;
}
