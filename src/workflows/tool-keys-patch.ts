import type { ToolNaming } from '../common/run-types.js';
import { isPatched } from './patch-markers.js';
import { TOOL_KEYS_PATCH } from './patch-ids.js';

/** Decided once, at the start of a run, before its manifest is read. */
export function toolNamingOfNewRun(): ToolNaming {
  return isPatched(TOOL_KEYS_PATCH) ? 'key' : 'id';
}
