/**
 * Stands in for `src/workflows/tool-keys-patch.ts` in a workflow bundle of the code from before
 * the `tollgate-tool-keys` patch (`workflowBundleBeforeToolKeys()`): no patch marker, and every
 * run names its tools by id, as the older code did.
 */
import type { ToolNaming } from '../../src/common/run-types.js';

export const TOOL_KEYS_PATCH = 'tollgate-tool-keys';

export function toolNamingOfNewRun(): ToolNaming {
  return 'id';
}
