import type { DecisionKind } from '../common/decision-types.js';
import type { RunState } from './run-state.js';

/**
 * A signal cannot answer: a refused one is kept in the audit trail (`rejected-decision`), with
 * what it named, and the run is otherwise unchanged.
 */
export function auditRefusedSignal(
  state: RunState,
  kind: DecisionKind | 'handOff',
  input: unknown,
  refusal: { code: string; message: string },
): void {
  const { toolCallId, decidedBy } = (input ?? {}) as { toolCallId?: unknown; decidedBy?: unknown };
  const known = typeof toolCallId === 'string' ? state.calls.waiting.get(toolCallId) : undefined;
  state.audit.add({
    type: 'rejected-decision',
    toolCallId: typeof toolCallId === 'string' ? toolCallId : '',
    toolName: known?.toolName ?? '',
    ...(known?.toolId !== undefined ? { toolId: known.toolId } : {}),
    kind,
    channel: 'signal',
    code: refusal.code,
    message: refusal.message,
    ...(decidedBy && typeof decidedBy === 'object'
      ? { decidedBy: decidedBy as { id: string; roles?: string[] } }
      : {}),
  });
}
