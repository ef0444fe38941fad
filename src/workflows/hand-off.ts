import { log, setHandler } from '@temporalio/workflow';
import { approversProblem, MAX_HAND_OFF_NOTE, MAX_HAND_OFFS } from '../common/approval-rules.js';
import type { DecidedBy, DecisionChannel, HandedOff } from '../common/run-types.js';
import { handOffSignal, handOffUpdate } from '../common/messages.js';
import type { TollgateErrorCode } from '../common/errors.js';
import { auditRef } from './audit-log.js';
import { checkDecisionInput } from './decision-input.js';
import { locateCall, refuse, type JudgedRun } from './decision-judge.js';
import { checkHandOff } from './governance.js';
import { handOffsOf, reassign } from './reassignment.js';
import { auditRefusedSignal } from './refused-signal.js';
import type { RunState } from './run-state.js';
import type { WaitingCall } from './waiting-call.js';

const FIELDS = new Set([
  'toolCallId',
  'fingerprint',
  'decidedBy',
  'to',
  'note',
  'agentId',
  'deadline',
]);

export type HandOffVerdict =
  | { ok: true; call: WaitingCall; to: string[]; by: DecidedBy; note?: string }
  | { ok: false; code: TollgateErrorCode; message: string };

/**
 * Whether a hand-off may apply, without changing anything (docs/hand-off.md): the shape of the
 * input, then the same checks as a decline (the call waits for approval, the deadline, the
 * fingerprint), then who may hand off. Shared by the update's validator and the signal.
 */
export function judgeHandOff(state: JudgedRun, raw: unknown): HandOffVerdict {
  const invalid = (message: string) => ({
    ok: false as const,
    code: 'INVALID_DECISION' as const,
    message,
  });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return invalid(
      'A hand-off must be a JSON object such as { "to": ["role:oncall"], "note": "..." }.',
    );
  }
  const { to, note, ...rest } = raw as Record<string, unknown>;
  const unknownField = Object.keys(raw).find((key) => !FIELDS.has(key));
  if (unknownField !== undefined) {
    return invalid(`Unknown hand-off field "${unknownField}"; allowed: ${[...FIELDS].join(', ')}.`);
  }
  const badTarget = approversProblem(to, 'Hand-off field "to"');
  if (badTarget) return invalid(badTarget);
  if (note !== undefined && (typeof note !== 'string' || note.length > MAX_HAND_OFF_NOTE)) {
    return invalid(
      `Hand-off field "note" must be a string of at most ${MAX_HAND_OFF_NOTE} characters.`,
    );
  }
  const input = checkDecisionInput(rest);
  if (!input.ok) return invalid(input.message);
  const located = locateCall(state, 'handOff', input.value);
  if (!located.ok) return located;
  const { call } = located;
  if (call.route) {
    return invalid(
      `Tool call ${call.toolCallId} (${call.toolName}) waits in sub-agent run ${call.route.child}; hand it off there, with its own id ${call.route.innerId}.`,
    );
  }
  const refusal = checkHandOff(call, input.value.decidedBy);
  if (refusal) return { ok: false, ...refusal };
  if (handOffsOf(call) >= MAX_HAND_OFFS) {
    return invalid(
      `Tool call ${call.toolCallId} (${call.toolName}) was handed off ${MAX_HAND_OFFS} times already; approve or decline it.`,
    );
  }
  return {
    ok: true,
    call,
    to: to as string[],
    by: input.value.decidedBy!,
    ...(note !== undefined ? { note: note as string } : {}),
  };
}

/** Applies an accepted hand-off: `to` decides the call from now on; the audit keeps the chain. */
export function applyHandOff(
  state: RunState,
  verdict: Extract<HandOffVerdict, { ok: true }>,
  channel: DecisionChannel,
): HandedOff {
  const { call, to, by, note } = verdict;
  state.audit.add({
    type: 'hand-off',
    ...auditRef(call),
    channel,
    decidedBy: by,
    ...(call.approvers ? { from: call.approvers } : {}),
    to,
    ...(note !== undefined ? { note } : {}),
    fingerprint: call.fingerprint,
  });
  const at = new Date(Date.now()).toISOString();
  const offset = reassign(state, call, {
    kind: 'hand-off',
    to,
    at,
    by,
    ...(note !== undefined ? { note } : {}),
  });
  const { toolCallId, toolName } = call;
  return { toolCallId, toolName, decision: 'handed-off', approvers: to, offset };
}

/** Installs the hand-off signal (for other languages' services) and update. */
export function installHandOff(state: RunState): void {
  setHandler(handOffSignal, (input) => {
    const verdict = judgeHandOff(state.calls, input);
    if (verdict.ok) {
      applyHandOff(state, verdict, 'signal');
      return;
    }
    auditRefusedSignal(state, 'handOff', input, verdict);
    log.warn('Hand-off signal refused', { code: verdict.code, message: verdict.message });
  });
  setHandler(
    handOffUpdate,
    (input) => {
      const verdict = judgeHandOff(state.calls, input);
      if (!verdict.ok) throw refuse(verdict);
      return applyHandOff(state, verdict, 'update');
    },
    {
      validator: (input) => {
        const verdict = judgeHandOff(state.calls, input);
        if (!verdict.ok) throw refuse(verdict);
      },
    },
  );
}
