import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type {
  Tool as McpToolDefinition,
  ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { TollgateError } from '../common/errors.js';
import { canonicalJson, toJsonValue, type JsonObject } from '../common/json.js';
import { MAX_STORED_DEFINITION, type StoredPin } from '../common/mcp-pins.js';
import { sha256Hex } from '../common/sha256.js';

export type { McpToolDefinition, ToolAnnotations };

/** What a definition is pinned by: what the model is told and what the gate is judged on. */
export function pinnedParts(tool: McpToolDefinition) {
  return {
    name: tool.name,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations ?? null,
  };
}

/** Hex SHA-256 of the canonical JSON of the tool's name, description, input schema, annotations. */
export function definitionFingerprint(tool: McpToolDefinition): string {
  return sha256Hex(canonicalJson(pinnedParts(tool)));
}

/** What the pins record keeps of a pin: the definition too, when it is small enough. */
export function storedPinOf(pinned: {
  definition: McpToolDefinition;
  fingerprint: string;
}): StoredPin {
  const parts = pinnedParts(pinned.definition);
  const small = canonicalJson(parts).length <= MAX_STORED_DEFINITION;
  return {
    fingerprint: pinned.fingerprint,
    ...(small ? { definition: toJsonValue(parts) as JsonObject } : {}),
    pinnedAt: new Date().toISOString(),
  };
}

/**
 * The tool as the server lists it now: `fingerprint` names what a call would run (every definition
 * listed under the name, or none), `drift` says how it differs from the pinned one, in words for
 * approvers and the audit. Two definitions under one name are a change: which one runs is the
 * server's choice.
 */
export function liveDefinition(
  server: string,
  pinned: { definition: McpToolDefinition; fingerprint: string },
  listed: McpToolDefinition[],
): { fingerprint: string; drift?: string } {
  const name = pinned.definition.name;
  const live = listed.filter((tool) => tool.name === name);
  if (live.length === 0)
    return { fingerprint: 'unlisted', drift: describeDrift(server, pinned, undefined)! };
  if (live.length > 1) {
    const fingerprint = sha256Hex(canonicalJson(live.map(pinnedParts)));
    const each = live.map((tool) => shorten(canonicalJson(pinnedParts(tool)))).join('; ');
    return {
      fingerprint,
      drift: `Tool "${name}" of MCP server "${server}" is listed ${live.length} times with different definitions (definition drift): ${each}.`,
    };
  }
  const fingerprint = definitionFingerprint(live[0]!);
  const drift = describeDrift(server, pinned, live[0]);
  return drift === undefined ? { fingerprint } : { fingerprint, drift };
}

/**
 * How the live definition differs from the pinned one, in words for approvers and the audit;
 * undefined when it does not.
 */
export function describeDrift(
  server: string,
  pinned: { definition: McpToolDefinition; fingerprint: string },
  live: McpToolDefinition | undefined,
): string | undefined {
  const name = pinned.definition.name;
  const where = `Tool "${name}" of MCP server "${server}"`;
  if (!live) return `${where} is no longer listed by the server (definition drift).`;
  const fingerprint = definitionFingerprint(live);
  if (fingerprint === pinned.fingerprint) return undefined;
  const before = pinnedParts(pinned.definition);
  const after = pinnedParts(live);
  const changes = (['description', 'inputSchema', 'annotations'] as const)
    .filter((part) => canonicalJson(before[part]) !== canonicalJson(after[part]))
    .map(
      (part) =>
        `${part} ${shorten(canonicalJson(before[part]))} -> ${shorten(canonicalJson(after[part]))}`,
    );
  // Pinned by a fingerprint alone (`pinned` option): only the fingerprints can be compared.
  const what =
    changes.length > 0
      ? changes.join('; ')
      : `fingerprint ${pinned.fingerprint.slice(0, 12)}… -> ${fingerprint.slice(0, 12)}…`;
  return `${where} changed since it was pinned (definition drift): ${what}.`;
}

function shorten(text: string, max = 400): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * The gate the annotations give (they are hints, so the doubtful case is gated): a tool marked
 * `readOnlyHint` runs ungated unless it is also marked `openWorldHint: true`; any other tool is
 * gated unless marked both `destructiveHint: false` and `openWorldHint: false` (MCP's defaults
 * for both are true).
 */
export function gatedByAnnotations(annotations: ToolAnnotations | undefined): boolean {
  if (annotations?.readOnlyHint === true) return annotations.openWorldHint === true;
  return annotations?.destructiveHint !== false || annotations?.openWorldHint !== false;
}

/** Bounds of one `tools/list` walk: a server must not page a worker out of memory or time. */
export const TOOL_LIST_LIMITS = { pages: 100, bytes: 8 * 1024 * 1024, timeMs: 30_000 };

/**
 * Every tool the server lists, following its pages within `TOOL_LIST_LIMITS`.
 * @throws TollgateError `MCP_INVALID_RESPONSE` when an answer does not follow the protocol,
 * `MCP_TOOL_LIST_LIMIT` when the listing passes a bound.
 */
export async function listAllTools(client: Client, server: string): Promise<McpToolDefinition[]> {
  const { pages, bytes, timeMs } = TOOL_LIST_LIMITS;
  const deadline = Date.now() + timeMs;
  const tools: McpToolDefinition[] = [];
  let size = 0;
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const left = deadline - Date.now();
    if (page > pages || left <= 0 || size > bytes) {
      const passed =
        page > pages ? `${pages} pages` : left <= 0 ? `${timeMs} ms` : `${bytes} bytes`;
      throw listLimit(server, passed);
    }
    let answer;
    try {
      answer = await client.listTools(cursor !== undefined ? { cursor } : undefined, {
        timeout: left,
      });
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
        throw listLimit(server, `${timeMs} ms`, error);
      throw asProtocolError(error, server, 'tools/list');
    }
    size += JSON.stringify(answer.tools).length;
    tools.push(...answer.tools);
    cursor = answer.nextCursor;
    if (cursor === undefined) return tools;
  }
}

function listLimit(server: string, passed: string, cause?: unknown): TollgateError {
  return new TollgateError(
    'MCP_TOOL_LIST_LIMIT',
    `MCP server "${server}" answered tools/list past ${passed} (limits: ${TOOL_LIST_LIMITS.pages} pages, ${TOOL_LIST_LIMITS.bytes} bytes, ${TOOL_LIST_LIMITS.timeMs} ms); fix the server's paging or list fewer tools.`,
    cause !== undefined ? { cause } : undefined,
  );
}

/** A response the SDK could not parse becomes `MCP_INVALID_RESPONSE`; other errors pass. */
export function asProtocolError(error: unknown, server: string, method: string): unknown {
  if (!isSchemaError(error)) return error;
  return new TollgateError(
    'MCP_INVALID_RESPONSE',
    `MCP server "${server}" answered ${method} with a result that does not follow the MCP schema (${summary(error)}); fix the server.`,
    { cause: error },
  );
}

function isSchemaError(error: unknown): error is Error & { issues: unknown[] } {
  return error instanceof Error && Array.isArray((error as { issues?: unknown }).issues);
}

function summary(error: Error & { issues: unknown[] }): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const { path, message } = issue as { path?: PropertyKey[]; message?: string };
      return `${(path ?? []).map(String).join('.') || '(root)'}: ${message ?? 'invalid'}`;
    })
    .join('; ');
}
