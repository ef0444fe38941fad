import { defineSignal, log, setHandler } from '@temporalio/workflow';
import type { RefusedDecisionNote } from '../common/audit-types.js';
import { REFUSED_DECISION_SIGNAL } from '../common/wire.js';
import type { RunState } from './run-state.js';

/**
 * Refusals kept per run: the signal is sent by the link route for links anyone may forge, so a
 * flood of bad links cannot grow the audit without bound (the history keeps every signal).
 */
export const MAX_REFUSAL_NOTES = 100;

/**
 * Records refusals judged outside the run (a tampered or expired signed link) or as a refused
 * update (which leaves no history): a `rejected-decision` audit entry, nothing else. Creates no
 * command, so no patch: a run that never gets the signal replays as before.
 */
export function installRefusalNotes(state: RunState): void {
  let notes = 0;
  setHandler(defineSignal<[RefusedDecisionNote]>(REFUSED_DECISION_SIGNAL), (raw) => {
    const note = checkNote(raw);
    if (!note) {
      log.warn('Malformed refusal note ignored');
      return;
    }
    if (++notes > MAX_REFUSAL_NOTES) return;
    const known = state.calls.waiting.get(note.toolCallId);
    state.audit.add({
      type: 'rejected-decision',
      toolCallId: note.toolCallId,
      toolName: known?.toolName ?? '',
      ...(known?.toolId !== undefined ? { toolId: known.toolId } : {}),
      kind: note.kind,
      channel: note.channel,
      code: note.code,
      message: note.message,
      ...(note.decidedBy ? { decidedBy: note.decidedBy } : {}),
    });
  });
}

function checkNote(raw: unknown): RefusedDecisionNote | undefined {
  const note = raw as Partial<RefusedDecisionNote> | null | undefined;
  if (!note || typeof note !== 'object') return undefined;
  const strings = [note.toolCallId, note.code, note.message];
  if (!strings.every((value) => typeof value === 'string' && value.length <= 2000))
    return undefined;
  if (note.kind !== 'approve' && note.kind !== 'decline') return undefined;
  if (note.channel !== 'link') return undefined;
  const by = note.decidedBy;
  if (by !== undefined && (typeof by !== 'object' || by === null || typeof by.id !== 'string')) {
    return undefined;
  }
  return {
    toolCallId: note.toolCallId!,
    kind: note.kind,
    channel: 'link',
    code: note.code!,
    message: note.message!,
    ...(by
      ? {
          decidedBy: {
            id: by.id,
            ...(Array.isArray(by.roles)
              ? { roles: by.roles.filter((r) => typeof r === 'string') }
              : {}),
          },
        }
      : {}),
  };
}
