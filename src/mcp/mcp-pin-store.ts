import type { McpPinsState, StoredPin } from '../common/mcp-pins.js';
import type { Tool } from '../definitions/create-tool.js';
import type { McpCallSetup, Pinned } from './mcp-call.js';
import type { McpToolDefinition } from './mcp-definition.js';

/** Where pins outlive the worker: the task queue's `McpPinRegistry`. */
export interface PinStore {
  pin(server: string, offered: Record<string, StoredPin>): Promise<McpPinsState>;
}

// No value import of the MCP SDK here: every worker loads this module, MCP or not.

/** The call setup of each MCP tool, by its `mcp` part, so the worker can give it a store. */
const setups = new WeakMap<object, McpCallSetup>();

export function registerSetup(mcp: object, setup: McpCallSetup): void {
  setups.set(mcp, setup);
}

/**
 * Gives the MCP tools among `tools` the store their pins are kept in (tools pinned by hand keep
 * theirs) and offers each server's pins to it at once, so a tool is pinned as its first worker saw
 * it even when no call comes before the next deploy. Not awaited: the store may need this very
 * worker to poll before it answers.
 */
export function attachPinStore(tools: Iterable<Tool>, store: PinStore): void {
  const offered = new Map<string, Record<string, StoredPin>>();
  for (const tool of tools) {
    const setup = setups.get((tool as { mcp?: object }).mcp ?? {});
    if (!setup || setup.pinnedByHand) continue;
    setup.store = store;
    const pins = offered.get(setup.server) ?? {};
    pins[setup.pinned.definition.name] = setup.offered;
    offered.set(setup.server, pins);
  }
  for (const [server, pins] of offered) {
    store
      .pin(server, pins)
      .catch((error: unknown) =>
        console.warn(
          `[tollgate] the pins of MCP server "${server}" could not be stored yet; each tool's first call stores them:`,
          error,
        ),
      );
  }
}

/**
 * The pin a call is judged against: the stored one when the tool has one (a definition that
 * changed across deploys then drifts), else this worker's, stored now; the worker's own when
 * there is no store or the record is full.
 */
export async function pinOf(setup: McpCallSetup): Promise<Pinned> {
  if (!setup.store) return setup.pinned;
  const name = setup.pinned.definition.name;
  const state = await setup.store.pin(setup.server, { [name]: setup.offered });
  const stored = state.pins[name];
  if (!stored) return setup.pinned;
  const definition =
    (stored.definition as McpToolDefinition | undefined) ?? setup.pinned.definition;
  return { definition, fingerprint: stored.fingerprint };
}
