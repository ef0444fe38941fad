/**
 * JSON-safe shapes and pure rules of stored MCP pins (docs/mcp.md "Pins across deploys"): the
 * first definition of each tool of one MCP server on one task queue, kept by that server's
 * `mcpPinsRegistry` workflow in its memo, so a later release compares against it.
 */
import type { DecidedBy } from './decision-types.js';
import { TollgateError } from './errors.js';
import type { JsonObject } from './json.js';

/** Pins one server's record keeps: past it, a tool stays pinned in its worker's memory only. */
export const MAX_STORED_PINS = 200;
/** A definition longer than this (canonical JSON, chars) is stored by its fingerprint alone. */
export const MAX_STORED_DEFINITION = 2048;
/** Re-pins a record remembers, newest last. */
const REMEMBERED_REPINS = 20;

/** One tool's stored pin. */
export interface StoredPin {
  fingerprint: string;
  /** Name, description, input schema and annotations; absent when over `MAX_STORED_DEFINITION`. */
  definition?: JsonObject;
  /** When it was stored (ISO 8601). */
  pinnedAt: string;
}

/** A re-pin: its tools' pins were dropped, so the next worker to check them pins what it sees. */
export interface McpRepin {
  /** The tools re-pinned (names on the server); every stored one when the operator named none. */
  tools: string[];
  repinnedBy?: DecidedBy;
  /** ISO 8601. */
  at: string;
}

/** The state of one server's record on one task queue. */
export interface McpPinsState {
  server: string;
  /** By the tool's name on the server. */
  pins: Record<string, StoredPin>;
  repins: McpRepin[];
}

/** What a re-pin asks for: some tools of the server, or all of them. */
export interface McpRepinRequest {
  tools?: string[];
  repinnedBy?: DecidedBy;
}

export function emptyPins(server: string): McpPinsState {
  return { server, pins: {}, repins: [] };
}

/** The state with `offered` pins added for tools that have none yet (first writer wins), bounded. */
export function withPins(state: McpPinsState, offered: Record<string, StoredPin>): McpPinsState {
  const pins = { ...state.pins };
  let added = false;
  for (const [name, pin] of Object.entries(offered)) {
    if (pins[name] !== undefined || Object.keys(pins).length >= MAX_STORED_PINS) continue;
    pins[name] = pin;
    added = true;
  }
  return added ? { ...state, pins } : state;
}

/** Why a re-pin cannot be applied: a tool without a stored pin; undefined when it can. */
export function repinProblem(
  state: McpPinsState,
  request: McpRepinRequest,
): TollgateError | undefined {
  const unknown = (request?.tools ?? []).filter((name) => state.pins[name] === undefined);
  if (unknown.length === 0) return undefined;
  return new TollgateError(
    'MCP_PIN_NOT_FOUND',
    `MCP server "${state.server}" has no stored pin for ${unknown.map((name) => `"${name}"`).join(', ')}; stored: ${Object.keys(state.pins).join(', ') || 'none'}.`,
  );
}

/** The state with the requested pins dropped and the re-pin recorded. */
export function withoutPins(
  state: McpPinsState,
  request: McpRepinRequest,
  at: string,
): McpPinsState {
  const tools = request.tools?.length ? request.tools : Object.keys(state.pins);
  const pins = Object.fromEntries(
    Object.entries(state.pins).filter(([name]) => !tools.includes(name)),
  );
  const repin: McpRepin = {
    tools,
    ...(request.repinnedBy ? { repinnedBy: request.repinnedBy } : {}),
    at,
  };
  return { ...state, pins, repins: [...state.repins, repin].slice(-REMEMBERED_REPINS) };
}
