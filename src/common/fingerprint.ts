import { canonicalJson } from './json.js';
import { sha256Hex } from './sha256.js';

/**
 * SPEC §4: lowercase hex SHA-256 of the canonical JSON of `{ args, toolName }`. Binds an approval
 * to the exact call a reviewer saw. Workflow-safe, so edited arguments get theirs in the run.
 */
export function toolCallFingerprint(toolName: string, args: unknown): string {
  return sha256Hex(canonicalJson({ args, toolName }));
}
