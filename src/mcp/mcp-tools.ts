import { z } from 'zod';
import { TollgateError } from '../common/errors.js';
import {
  createTool,
  TOOL_NAME,
  type ApprovalPredicateContext,
  type GateAnswer,
  type Tool,
} from '../definitions/create-tool.js';
import { callMcpTool, currentDefinition, type McpCallSetup } from './mcp-call.js';
import {
  definitionFingerprint,
  gatedByAnnotations,
  listAllTools,
  storedPinOf,
  type McpToolDefinition,
  type ToolAnnotations,
} from './mcp-definition.js';
import { checkMcpOptions, serverLabel, type McpToolsOptions } from './mcp-options.js';
import { toolListWatcher, warnOnDrift } from './mcp-list-changed.js';
import { registerSetup } from './mcp-pin-store.js';
import { McpClientPool } from './mcp-pool.js';

/** A Tollgate tool backed by a tool of an MCP server. */
export type McpTool = Tool & {
  readonly mcp: {
    /** The server's name (`McpToolsOptions.name`). */
    server: string;
    /** The tool's name on the server. */
    name: string;
    /**
     * The fingerprint this worker pinned (or was given by `pinned`); a worker keeps the first pin
     * of each tool in Temporal, which then holds over this one (docs/mcp.md).
     */
    fingerprint: string;
    /** The tool's annotations, as pinned. */
    annotations?: ToolAnnotations;
  };
};

const DEFAULT_TIMEOUT_MS = 300_000;
/** What a call's attempt gets past its request's timeout, ms: to lease a connection and answer. */
const ATTEMPT_GRACE_MS = 5_000;
const DEFAULT_IDLE_MS = 30_000;

/**
 * Lists an MCP server's tools and turns each into a Tollgate tool, keyed by its (prefixed) name:
 * gated by its annotations unless overridden, pinned by a fingerprint of its definition, run on
 * the worker as an activity through a pooled connection. Call it where the agent is defined.
 *
 * @throws TollgateError `INVALID_OPTIONS`, `MCP_CONNECTION_FAILED`, `MCP_INVALID_RESPONSE`,
 * `MCP_TOOL_NOT_FOUND` (a name in `include` or `tools` the server does not list).
 */
export async function mcpTools(options: McpToolsOptions): Promise<Record<string, McpTool>> {
  checkMcpOptions(options);
  const server = serverLabel(options);
  const pool = new McpClientPool(options, server, options.idleTimeoutMs ?? DEFAULT_IDLE_MS);
  const lease = await pool.lease();
  let listed: McpToolDefinition[];
  try {
    listed = await listAllTools(lease.client, server);
  } finally {
    lease.release();
  }
  const names = new Set(listed.map((tool) => tool.name));
  if (names.size < listed.length) {
    const twice = listed.find((tool, i) => listed.findIndex((t) => t.name === tool.name) < i)!;
    throw new TollgateError(
      'MCP_INVALID_RESPONSE',
      `MCP server "${server}" lists tool "${twice.name}" more than once, so no definition can be pinned; fix the server.`,
    );
  }
  for (const name of [...(options.include ?? []), ...Object.keys(options.tools ?? {})]) {
    if (!names.has(name)) {
      throw new TollgateError(
        'MCP_TOOL_NOT_FOUND',
        `MCP server "${server}" has no tool "${name}"; it lists: ${[...names].join(', ') || 'none'}.`,
      );
    }
  }
  const chosen = options.include
    ? listed.filter((tool) => options.include!.includes(tool.name))
    : listed;
  const tools: Record<string, McpTool> = {};
  const setups: McpCallSetup[] = [];
  for (const definition of chosen) {
    const key = toolKey(options.prefix ?? '', definition.name);
    if (tools[key]) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        `MCP server "${server}": tools "${tools[key].mcp.name}" and "${definition.name}" both become "${key}"; use include to pick one.`,
      );
    }
    tools[key] = toTool(key, definition, { options, server, pool, setups });
  }
  pool.onToolListChanged(toolListWatcher(server, setups, options.onToolsChanged ?? warnOnDrift));
  return tools;
}

/** The tool's key: the prefixed name, with characters models reject replaced by `_`. */
function toolKey(prefix: string, name: string): string {
  const key = `${prefix}${name}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  if (!TOOL_NAME.test(key)) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `MCP tool name "${name}" gives no usable tool name; set a prefix.`,
    );
  }
  return key;
}

function toTool(
  key: string,
  definition: McpToolDefinition,
  shared: { options: McpToolsOptions; server: string; pool: McpClientPool; setups: McpCallSetup[] },
): McpTool {
  const { options, server, pool } = shared;
  const overrides = options.tools?.[definition.name] ?? {};
  const byHand = options.pinned?.[definition.name];
  const fingerprint = byHand ?? definitionFingerprint(definition);
  const setup: McpCallSetup = {
    pool,
    server,
    pinned: { definition, fingerprint },
    offered: storedPinOf({ definition, fingerprint }),
    pinnedByHand: byHand !== undefined,
    onDrift: options.onDrift ?? 'gate',
    timeoutMs: overrides.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retriesSafe: overrides.retry !== undefined,
  };
  const gate = overrides.requireApproval ?? options.requireApproval;
  const tool = createTool({
    id: key,
    description: definition.description ?? definition.title ?? definition.name,
    inputSchema: inputSchemaOf(definition),
    requireApproval: (args: unknown, context: ApprovalPredicateContext) =>
      decideGate(setup, gate, definition.annotations, args, context),
    ...(overrides.approval ? { approval: overrides.approval } : {}),
    // The request's own timeout ends a hung call first, with a typed error, as one attempt.
    timeoutMs: setup.timeoutMs + ATTEMPT_GRACE_MS,
    ...(overrides.retry ? { retry: overrides.retry } : {}),
    execute: (args, context) => callMcpTool(setup, args, context),
  });
  const mcp = {
    server,
    name: definition.name,
    fingerprint,
    ...(definition.annotations ? { annotations: definition.annotations } : {}),
  };
  registerSetup(mcp, setup);
  shared.setups.push(setup);
  return Object.freeze({ ...tool, mcp });
}

/**
 * The gate of one call: a changed definition first (gated and never granted, or let through to be
 * refused when the call runs), then the override, then the pinned annotations. The answer names
 * the definition seen, which the call's approval binds to.
 */
async function decideGate(
  setup: McpCallSetup,
  gate: Tool['requireApproval'],
  annotations: ToolAnnotations | undefined,
  args: unknown,
  context: ApprovalPredicateContext,
): Promise<GateAnswer> {
  const { fingerprint, drift, pinned } = await currentDefinition(setup);
  if (drift !== undefined && setup.onDrift === 'refuse') {
    const note = `${drift} The call will be refused (onDrift: 'refuse').`;
    return { gated: false, note, definition: pinned.fingerprint };
  }
  if (drift !== undefined) {
    const note = `${drift} No grant covers a changed tool: a person must approve this call.`;
    return { gated: true, note, grantable: false, definition: fingerprint };
  }
  const answer =
    typeof gate === 'function'
      ? await gate(args, context)
      : typeof gate === 'boolean'
        ? gate
        : gatedByAnnotations(annotations);
  return typeof answer === 'boolean'
    ? { gated: answer, definition: fingerprint }
    : { ...answer, definition: fingerprint };
}

/** The server's JSON Schema as zod (what the model is told); a schema zod cannot read is loose. */
function inputSchemaOf(definition: McpToolDefinition): z.ZodType<unknown> {
  try {
    return z.fromJSONSchema(definition.inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return z.looseObject({});
  }
}
