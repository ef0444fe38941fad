import type { ApplicationFailure } from '@temporalio/common';
import { deadlineProblem } from '../common/decision-deadline.js';
import type { TollgateErrorCode } from '../common/errors.js';
import { tollgateFailure } from '../common/failure.js';
import type { DecisionInput, DecisionKind } from '../common/decision-types.js';
import { checkDecisionInput } from './decision-input.js';
import { checkGovernance } from './governance.js';
import { validateAgainstSchema } from './json-schema-check.js';
import type { Decision, WaitingCall } from './waiting-call.js';

/**
 * What the judge reads of a run: its identity, whether it is closed, and the calls that wait,
 * were decided or expired. A run's `WaitingCalls` is one; a unit test can pass a plain object.
 */
export interface JudgedRun {
  readonly runId: string;
  readonly agentId: string;
  readonly closed: boolean;
  readonly waiting: ReadonlyMap<string, WaitingCall>;
  readonly decided: ReadonlySet<string>;
  readonly expired: ReadonlySet<string>;
  latestWaiting(kind?: WaitingCall['kind']): WaitingCall | undefined;
}

export type Verdict =
  | { ok: true; call: WaitingCall; decision: Decision }
  | { ok: false; code: TollgateErrorCode; message: string };

/** A decision, or a hand-off (which changes who decides, and decides nothing). */
export type JudgedKind = DecisionKind | 'handOff';

const KIND_OF_WAIT: Record<JudgedKind, WaitingCall['kind']> = {
  approve: 'approve',
  decline: 'approve',
  resume: 'resume',
  handOff: 'approve',
};

const VERB: Record<JudgedKind, string> = {
  approve: 'approve',
  decline: 'decline',
  resume: 'resume',
  handOff: 'hand off',
};

type Located =
  { ok: true; call: WaitingCall } | { ok: false; code: TollgateErrorCode; message: string };

/**
 * Decides whether a decision may be applied, without changing anything. The update validators
 * and the signal handlers share it, so both paths enforce the same rules (SPEC §5).
 */
export function judgeDecision(state: JudgedRun, kind: DecisionKind, raw: unknown): Verdict {
  const input = checkDecisionInput(raw);
  if (!input.ok) return { ok: false, code: 'INVALID_DECISION', message: input.message };
  const { reason, decidedBy, resumeData, args, amount, grant, runGrant } = input.value;
  const located = locateCall(state, kind, input.value);
  if (!located.ok) return located;
  const { call } = located;
  if (grant !== undefined || runGrant === true) {
    const problem = grantProblem(call, kind, args);
    if (problem) return { ok: false, code: 'INVALID_GRANT', message: problem };
  }
  const refusal = kind === 'resume' ? undefined : checkGovernance(call, kind, input.value);
  if (refusal) return { ok: false, ...refusal };
  if (kind === 'resume') {
    const problem = validateAgainstSchema(call.resumeSchema, resumeData ?? null);
    if (problem) {
      return {
        ok: false,
        code: 'INVALID_RESUME_DATA',
        message: `Resume data for tool call ${call.toolCallId} (${call.toolName}) is invalid: ${problem}.`,
      };
    }
  }
  const decision: Decision = {
    kind,
    ...(reason !== undefined ? { reason } : {}),
    ...(decidedBy !== undefined ? { decidedBy } : {}),
    ...(args !== undefined && kind === 'approve' ? { args } : {}),
    ...(amount !== undefined ? { amount } : {}),
    ...(resumeData !== undefined ? { resumeData } : {}),
    ...(grant !== undefined ? { grant } : {}),
    ...(runGrant === true ? { runGrant } : {}),
  };
  return { ok: true, call, decision };
}

/**
 * The waiting call a decision or hand-off of `kind` is about, when the run may take it: before
 * its deadline, for this agent, while the run is open, waiting for this kind, fingerprint equal.
 */
export function locateCall(
  state: JudgedRun,
  kind: JudgedKind,
  input: Pick<DecisionInput, 'toolCallId' | 'fingerprint' | 'agentId' | 'deadline'>,
): Located {
  const { toolCallId, fingerprint } = input;
  // Workflow time: when the run sees the decision, however late it was delivered.
  const late = deadlineProblem(input.deadline, Date.now());
  if (late) return { ok: false, code: 'DECISION_DEADLINE_PASSED', message: late };
  if (input.agentId !== undefined && input.agentId !== state.agentId) {
    return {
      ok: false,
      code: 'RUN_NOT_FOUND',
      // Names only what the caller sent: the run's real agent is not the caller's to learn.
      message: `No run with id "${state.runId}" exists for agent "${input.agentId}".`,
    };
  }
  if (state.closed) {
    return {
      ok: false,
      code: 'RUN_FINISHED',
      message: `Run ${state.runId} has finished; it takes no more decisions.`,
    };
  }
  const call = toolCallId === undefined ? latestOfKind(state, kind) : state.waiting.get(toolCallId);
  if (!call) return missingCall(state, kind, toolCallId);
  if (call.kind !== KIND_OF_WAIT[kind]) {
    const wanted = call.kind === 'approve' ? 'approve or decline' : 'resume';
    return {
      ok: false,
      code: 'WRONG_DECISION_KIND',
      message: `Tool call ${call.toolCallId} (${call.toolName}) waits for ${wanted}, not ${VERB[kind]}.`,
    };
  }
  if (fingerprint !== undefined && fingerprint !== call.fingerprint) {
    return {
      ok: false,
      code: 'FINGERPRINT_MISMATCH',
      message: `Fingerprint ${fingerprint} does not match tool call ${call.toolCallId} (${call.toolName}), whose fingerprint is ${call.fingerprint}; the arguments differ from what was reviewed.`,
    };
  }
  return { ok: true, call };
}

/** A grant approves the call as it was asked, alone: never edits, a decline or a quorum. */
function grantProblem(call: WaitingCall, kind: DecisionKind, args: unknown): string | undefined {
  const what = `tool call ${call.toolCallId} (${call.toolName})`;
  if (kind !== 'approve') return `A grant only approves; ${kind} ${what} without one.`;
  if (args !== undefined) return `A grant approves ${what} as asked; send edited args without it.`;
  if (call.route) return `No grant here covers ${what}: it waits in a sub-agent's run.`;
  if ((call.quorum ?? 1) > 1) {
    return `No grant covers ${what}: it needs ${call.quorum} approvers; approve it in person.`;
  }
  return undefined;
}

function latestOfKind(state: JudgedRun, kind: JudgedKind): WaitingCall | undefined {
  return state.latestWaiting(KIND_OF_WAIT[kind]);
}

function missingCall(state: JudgedRun, kind: JudgedKind, toolCallId: string | undefined): Located {
  if (toolCallId === undefined) {
    const other = state.latestWaiting();
    if (other) {
      const wanted = other.kind === 'approve' ? 'approve or decline' : 'resume';
      return {
        ok: false,
        code: 'WRONG_DECISION_KIND',
        message: `No tool call in run ${state.runId} waits for ${VERB[kind]}; ${other.toolCallId} (${other.toolName}) waits for ${wanted}.`,
      };
    }
    return {
      ok: false,
      code: 'NO_PENDING_TOOL_CALL',
      message: `Run ${state.runId} has no tool call waiting for a decision; nothing to ${VERB[kind]}.`,
    };
  }
  if (state.expired.has(toolCallId)) {
    return {
      ok: false,
      code: 'APPROVAL_EXPIRED',
      message: `The approval of tool call ${toolCallId} expired before this decision; it was handled as its policy says.`,
    };
  }
  if (state.decided.has(toolCallId)) {
    return {
      ok: false,
      code: 'TOOL_CALL_ALREADY_DECIDED',
      message: `Tool call ${toolCallId} was already decided; a decision is applied at most once.`,
    };
  }
  return {
    ok: false,
    code: 'TOOL_CALL_NOT_PENDING',
    message: `Tool call ${toolCallId} is not waiting in run ${state.runId}; list what waits with pendingToolCalls.`,
  };
}

/** The failure an update (or its validator) throws for a refused decision. */
export function refuse(verdict: { code: TollgateErrorCode; message: string }): ApplicationFailure {
  return tollgateFailure(verdict.code, verdict.message);
}
