import { canonicalJson } from './json.js';
import { sha256Hex } from './sha256.js';

/**
 * SPEC §4: lowercase hex SHA-256 of the canonical JSON of `{ args, toolName }`. Binds an approval
 * to the exact call a reviewer saw. Workflow-safe, so edited arguments get theirs in the run.
 */
export function toolCallFingerprint(toolName: string, args: unknown): string {
  return sha256Hex(canonicalJson({ args, toolName }));
}

/**
 * The fingerprint of a call that waits again because its tool's definition changed after it was
 * approved (docs/mcp.md): of `{ args, definition, toolName }`, so a decision (or a signed link)
 * given for the call as first shown, with its SPEC §4 fingerprint, cannot answer the new request.
 */
export function redefinedCallFingerprint(
  toolName: string,
  args: unknown,
  definition: string,
): string {
  return sha256Hex(canonicalJson({ args, definition, toolName }));
}
