import { log, setHandler } from '@temporalio/workflow';
import type { DecisionInput, DecisionKind } from '../common/decision-types.js';
import {
  auditQuery,
  chunksQuery,
  conversationQuery,
  decisionSignals,
  decisionUpdates,
  pendingToolCallsQuery,
} from '../common/messages.js';
import { installAutoResume } from './auto-resume.js';
import { judgeDecision, refuse, type Verdict } from './decision-judge.js';
import { forwardDecision, installChildStatusHandler } from './delegation.js';
import { giveRunGrant } from './grant-use.js';
import { installHandOff } from './hand-off.js';
import { installRefusalNotes } from './refusal-notes.js';
import { auditRefusedSignal } from './refused-signal.js';
import { installLivePolicy } from './live-policy-run.js';
import { installFollow } from './follow.js';
import { installMoveNotes } from './run-moves.js';
import type { RunState } from './run-state.js';
import { MAX_SLICE_CHUNKS } from './chunk-log.js';
import { isPatched } from './patch-markers.js';
import { DEADLINE_PATCH } from './patch-ids.js';

/**
 * `judgeDecision` for a signal. Code before the deadline refused a signal carrying one as an
 * unknown field; applying it changes the run's commands, so that is patched. The patch is asked
 * only when such a signal would apply: histories without one record no marker and replay as
 * before. (Update validators never ask: an accepted update with a deadline is new history.)
 */
function judgeSignal(state: RunState, kind: DecisionKind, raw: unknown): Verdict {
  if ((raw as DecisionInput | undefined)?.channel !== undefined) {
    // As before links existed: only the HTTP server's link route sets it, and it sends updates.
    return {
      ok: false,
      code: 'INVALID_DECISION',
      message: 'Unknown decision field "channel" (signals cannot carry it).',
    };
  }
  if ((raw as DecisionInput | undefined)?.grant !== undefined) {
    // Signals cannot answer, and a grant's release must say which calls it let through.
    return {
      ok: false,
      code: 'INVALID_DECISION',
      message: 'Unknown decision field "grant" (signals cannot carry it; send an update).',
    };
  }
  if ((raw as DecisionInput | undefined)?.runGrant !== undefined) {
    // Refused as an unknown field before run grants existed: signals still refuse it.
    return {
      ok: false,
      code: 'INVALID_DECISION',
      message: 'Unknown decision field "runGrant" (signals cannot carry it; send an update).',
    };
  }
  const verdict = judgeDecision(state.calls, kind, raw);
  const deadline = (raw as DecisionInput | undefined)?.deadline;
  if (!verdict.ok || deadline === undefined || isPatched(DEADLINE_PATCH)) return verdict;
  return {
    ok: false,
    code: 'INVALID_DECISION',
    message: 'Unknown decision field "deadline" (this run started before decision deadlines).',
  };
}

/** Installs the run's signals, updates and queries (SPEC §8). */
export function installHandlers(state: RunState): void {
  for (const kind of ['approve', 'decline', 'resume'] as const) {
    setHandler(decisionSignals[kind], (input) => {
      const verdict = judgeSignal(state, kind, input);
      if (verdict.ok) {
        state.apply(verdict.call, verdict.decision, 'signal');
        forwardDecision(state, verdict.call, kind, verdict.decision).catch((error: unknown) =>
          log.warn('Could not pass a decision to a sub-agent run', { error: String(error) }),
        );
        return;
      }
      // Signals cannot answer; the refusal is kept in the audit trail and the run is unchanged.
      auditRefusedSignal(state, kind, input, verdict);
      log.warn('Decision signal refused', { kind, code: verdict.code, message: verdict.message });
    });
    setHandler(
      decisionUpdates[kind],
      async (input) => {
        const verdict = judgeDecision(state.calls, kind, input);
        if (!verdict.ok) throw refuse(verdict);
        // Applied before any await, so a second decision in the same batch sees it taken.
        const channel = input.grant ? 'grant' : (input.channel ?? 'update');
        const applied = state.apply(verdict.call, verdict.decision, channel);
        giveRunGrant(state, verdict.call, verdict.decision);
        await forwardDecision(state, verdict.call, kind, verdict.decision);
        return applied;
      },
      {
        validator: (input) => {
          const verdict = judgeDecision(state.calls, kind, input);
          if (!verdict.ok) throw refuse(verdict);
        },
      },
    );
  }
  setHandler(chunksQuery, ({ offset, limit }) =>
    state.log.slice(offset, Math.min(limit ?? MAX_SLICE_CHUNKS, MAX_SLICE_CHUNKS)),
  );
  setHandler(conversationQuery, ({ upTo }) => state.messages.slice(0, upTo));
  setHandler(pendingToolCallsQuery, () => state.calls.pendingToolCalls());
  setHandler(auditQuery, () => state.audit.entries);
  installChildStatusHandler(state);
  installAutoResume(state);
  installRefusalNotes(state);
  installHandOff(state);
  installMoveNotes(state);
  installLivePolicy(state);
  installFollow(state.log);
}
