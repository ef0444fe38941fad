import { patched } from '@temporalio/workflow';
import type { ToolNaming } from '../common/run-types.js';

/**
 * Runs that record this patch name their tools by their key in the agent's `tools` (SPEC §1
 * "Tool names"); runs started before it keep the tools' ids, for their whole life.
 */
export const TOOL_KEYS_PATCH = 'tollgate-tool-keys';

/** Decided once, at the start of a run, before its manifest is read. */
export function toolNamingOfNewRun(): ToolNaming {
  return patched(TOOL_KEYS_PATCH) ? 'key' : 'id';
}
