import { createHash } from 'node:crypto';
import { canonicalJson } from './json.js';

/**
 * SPEC §4: lowercase hex SHA-256 of the canonical JSON of `{ args, toolName }`. Binds an approval
 * to the exact call a reviewer saw. Node-only (workflows receive fingerprints, never compute them).
 */
export function toolCallFingerprint(toolName: string, args: unknown): string {
  return createHash('sha256').update(canonicalJson({ args, toolName })).digest('hex');
}
