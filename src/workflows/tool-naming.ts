import { patched } from '@temporalio/workflow';
import type { AgentManifest, ModelToolCall, ToolNaming } from '../common/run-types.js';

/**
 * Runs that record this patch name their tools by their key in the agent's `tools` (SPEC §1
 * "Tool names"); runs started before it keep the tools' ids, for their whole life.
 */
export const TOOL_KEYS_PATCH = 'tollgate-tool-keys';

/** Decided once, at the start of a run, before its manifest is read. */
export function toolNamingOfNewRun(): ToolNaming {
  return patched(TOOL_KEYS_PATCH) ? 'key' : 'id';
}

/** The naming every activity of the run is told: absent (by id) for runs started before keys. */
export function namingOf(manifest: AgentManifest): { toolNaming?: 'key' } {
  return manifest.toolNaming === 'key' ? { toolNaming: 'key' } : {};
}

/** The model's calls, each with the tool's `id` where it differs from the name called. */
export function withToolIds(manifest: AgentManifest, calls: ModelToolCall[]): ModelToolCall[] {
  return calls.map((call) => {
    const toolId = manifest.tools[call.toolName]?.toolId;
    return toolId !== undefined ? { ...call, toolId } : call;
  });
}
