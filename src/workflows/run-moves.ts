import { log, setHandler } from '@temporalio/workflow';
import type { DecidedBy } from '../common/decision-types.js';
import type { BuildRef, RunMovedNote } from '../common/deployment-types.js';
import { runMovedSignal } from '../common/messages.js';
import type { RunState } from './run-state.js';

/** Longest reason kept; the CLI and HTTP edge pass what an operator typed. */
const MAX_REASON = 2000;

/**
 * Records an operator's move of the run to another build (docs/deploying.md): a `moved` audit
 * entry, nothing else. Creates no command, so no patch: a run that never gets the signal replays
 * as before, and the build the run moved to handles it (Temporal sent it there first).
 */
export function installMoveNotes(state: RunState): void {
  setHandler(runMovedSignal, (raw) => {
    const note = checkNote(raw);
    if (!note) {
      log.warn('Malformed move note ignored');
      return;
    }
    state.audit.add({ type: 'moved', ...note });
  });
}

function checkNote(raw: unknown): RunMovedNote | undefined {
  const note = raw as Partial<RunMovedNote> | null | undefined;
  if (!note || typeof note !== 'object') return undefined;
  const from = buildOf(note.from);
  const to = buildOf(note.to);
  if (!from || !to) return undefined;
  const reason = typeof note.reason === 'string' ? note.reason.slice(0, MAX_REASON) : undefined;
  const movedBy = deciderOf(note.movedBy);
  return {
    from,
    to,
    ...(movedBy ? { movedBy } : {}),
    ...(reason !== undefined ? { reason } : {}),
  };
}

function buildOf(raw: unknown): BuildRef | undefined {
  const build = raw as Partial<BuildRef> | null | undefined;
  if (typeof build?.deployment !== 'string' || typeof build.buildId !== 'string') return undefined;
  return { deployment: build.deployment, buildId: build.buildId };
}

function deciderOf(raw: unknown): DecidedBy | undefined {
  const by = raw as Partial<DecidedBy> | null | undefined;
  if (typeof by?.id !== 'string') return undefined;
  const roles = Array.isArray(by.roles) ? by.roles.filter((r) => typeof r === 'string') : undefined;
  return { id: by.id, ...(roles ? { roles } : {}) };
}
