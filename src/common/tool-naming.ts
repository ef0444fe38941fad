/**
 * How a run names its tools (SPEC §1 "Tool names"): `key`, by their key in the agent's `tools`
 * (runs started since the `tollgate-tool-keys` patch); `id`, by the tool's `id` (runs started
 * before). Fixed at the start of a run, for its whole life.
 */
export type ToolNaming = 'key' | 'id';

/** A sub-agent `key` is offered to the model as the tool `agent-<key>` (SPEC §7). */
export const DELEGATION_PREFIX = 'agent-';
