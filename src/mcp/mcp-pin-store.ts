import type { McpPinsState, StoredPin } from '../common/mcp-pins.js';
import type { Tool } from '../definitions/create-tool.js';
import type { McpToolDefinition } from './mcp-definition.js';

/** Where pins outlive the worker: the task queue's `McpPinRegistry`. */
export interface PinStore {
  pin(server: string, offered: Record<string, StoredPin>): Promise<McpPinsState>;
}

// No value import of the MCP SDK here: every worker loads this module, MCP or not.

/** A tool's pinned definition and its fingerprint. */
export type Pinned = { definition: McpToolDefinition; fingerprint: string };

/** What of an MCP tool's call setup its pin concerns. */
export interface PinnedTool {
  server: string;
  /** The pin this worker took (or was given): what the store gets when it has none. */
  pinned: Pinned;
  /** `pinned` as the pins record would store it. */
  offered: StoredPin;
  /** Pinned by the `pinned` option: wins over stored pins, never stored. */
  pinnedByHand: boolean;
  /** Where pins outlive the worker, given when the worker starts (`attachPinStore`). */
  store?: PinStore;
}

/** The call setup of each MCP tool, by its `mcp` part, so the worker can give it a store. */
const setups = new WeakMap<object, PinnedTool>();

export function registerSetup(mcp: object, setup: PinnedTool): void {
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
export async function pinOf(setup: PinnedTool): Promise<Pinned> {
  if (!setup.store) return setup.pinned;
  const name = setup.pinned.definition.name;
  const state = await setup.store.pin(setup.server, { [name]: setup.offered });
  const stored = state.pins[name];
  if (!stored) return setup.pinned;
  const definition =
    (stored.definition as McpToolDefinition | undefined) ?? setup.pinned.definition;
  return { definition, fingerprint: stored.fingerprint };
}
