import type { AgentManifest, ModelToolCall } from '../common/run-types.js';

/**
 * The naming every activity of the run is told: absent (by id) for runs started before tools were
 * named by key, whose manifests do not say (`tool-keys-patch.ts`).
 */
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
