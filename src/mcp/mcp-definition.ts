import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  Tool as McpToolDefinition,
  ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { TollgateError } from '../common/errors.js';
import { canonicalJson } from '../common/json.js';
import { sha256Hex } from '../common/sha256.js';

export type { McpToolDefinition, ToolAnnotations };

/** What a definition is pinned by: what the model is told and what the gate is judged on. */
function pinnedParts(tool: McpToolDefinition) {
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

/**
 * Every tool the server lists, following its pages.
 * @throws TollgateError `MCP_INVALID_RESPONSE` when an answer does not follow the protocol.
 */
export async function listAllTools(client: Client, server: string): Promise<McpToolDefinition[]> {
  const tools: McpToolDefinition[] = [];
  let cursor: string | undefined;
  do {
    let page;
    try {
      page = await client.listTools(cursor !== undefined ? { cursor } : undefined);
    } catch (error) {
      throw asProtocolError(error, server, 'tools/list');
    }
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
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
