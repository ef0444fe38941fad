import type { ModelToolCall } from '../common/run-types.js';
import { auditRef } from './audit-log.js';
import { askPatch } from './local-execution.js';
import type { ToolRunContext } from './tool-run-context.js';
import { DEFINITION_REGATE_PATCH } from './patch-ids.js';

/**
 * Whether a call whose tool changed before it ran waits for a new approval; if so, the audit gets
 * the new gate: gated, by the change, not grantable, bound to the tool's new definition.
 */
export function regatesOnChange(
  context: ToolRunContext,
  call: ModelToolCall,
  change: { note: string; definition: string },
): boolean {
  if (!askPatch(context.patches, DEFINITION_REGATE_PATCH)) return false;
  context.state.audit.add({
    type: 'gate',
    ...auditRef(call),
    gated: true,
    source: 'definition-change',
    note: change.note,
    grantable: false,
    definition: change.definition,
  });
  return true;
}
