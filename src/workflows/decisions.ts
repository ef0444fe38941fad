import {
  ApplicationFailure,
  defineQuery,
  defineSignal,
  defineUpdate,
  log,
  patched,
  setHandler,
} from '@temporalio/workflow';
import { deadlineProblem } from '../common/decision-deadline.js';
import { FAILURE_TYPE_PREFIX, type TollgateErrorCode } from '../common/errors.js';
import type { ChunkSlice } from '../common/chunks.js';
import type { JsonValue } from '../common/json.js';
import type {
  AppliedDecision,
  AuditEntry,
  DecisionInput,
  DecisionKind,
  PendingToolCall,
} from '../common/run-types.js';
import { QUERIES, SIGNALS, UPDATES } from '../common/wire.js';
import { installAutoResume } from './auto-resume.js';
import { checkDecisionInput } from './decision-input.js';
import { forwardDecision, installChildStatusHandler } from './delegation.js';
import { checkGovernance } from './governance.js';
import { installRefusalNotes } from './refusal-notes.js';
import { validateAgainstSchema } from './json-schema-check.js';
import type { RunState } from './run-state.js';
import type { Decision, WaitingCall } from './waiting-call.js';

type Verdict =
  | { ok: true; call: WaitingCall; decision: Decision }
  | { ok: false; code: TollgateErrorCode; message: string };

const KIND_OF_WAIT: Record<DecisionKind, WaitingCall['kind']> = {
  approve: 'approve',
  decline: 'approve',
  resume: 'resume',
};

/**
 * Decides whether a decision may be applied, without changing anything. The update validators
 * and the signal handlers share it, so both paths enforce the same rules (SPEC §5).
 */
export function judgeDecision(state: RunState, kind: DecisionKind, raw: unknown): Verdict {
  const input = checkDecisionInput(raw);
  if (!input.ok) return { ok: false, code: 'INVALID_DECISION', message: input.message };
  const { toolCallId, fingerprint, reason, decidedBy, resumeData, args } = input.value;
  // Workflow time: when the run sees the decision, however late it was delivered.
  const late = deadlineProblem(input.value.deadline, Date.now());
  if (late) return { ok: false, code: 'DECISION_DEADLINE_PASSED', message: late };
  if (input.value.agentId !== undefined && input.value.agentId !== state.agentId) {
    return {
      ok: false,
      code: 'RUN_NOT_FOUND',
      // Names only what the caller sent: the run's real agent is not the caller's to learn.
      message: `No run with id "${state.runId}" exists for agent "${input.value.agentId}".`,
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
      message: `Tool call ${call.toolCallId} (${call.toolName}) waits for ${wanted}, not ${kind}.`,
    };
  }
  if (fingerprint !== undefined && fingerprint !== call.fingerprint) {
    return {
      ok: false,
      code: 'FINGERPRINT_MISMATCH',
      message: `Fingerprint ${fingerprint} does not match tool call ${call.toolCallId} (${call.toolName}), whose fingerprint is ${call.fingerprint}; the arguments differ from what was reviewed.`,
    };
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
    ...(resumeData !== undefined ? { resumeData } : {}),
  };
  return { ok: true, call, decision };
}

function latestOfKind(state: RunState, kind: DecisionKind): WaitingCall | undefined {
  return state.latestWaiting(KIND_OF_WAIT[kind]);
}

function missingCall(state: RunState, kind: DecisionKind, toolCallId: string | undefined): Verdict {
  if (toolCallId === undefined) {
    const other = state.latestWaiting();
    if (other) {
      const wanted = other.kind === 'approve' ? 'approve or decline' : 'resume';
      return {
        ok: false,
        code: 'WRONG_DECISION_KIND',
        message: `No tool call in run ${state.runId} waits for ${kind}; ${other.toolCallId} (${other.toolName}) waits for ${wanted}.`,
      };
    }
    return {
      ok: false,
      code: 'NO_PENDING_TOOL_CALL',
      message: `Run ${state.runId} has no tool call waiting for a decision; nothing to ${kind}.`,
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

/** Patch of the signal path: decisions carrying a `deadline` (refused as unknown before it). */
export const DEADLINE_PATCH = 'tollgate-decision-deadline';

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
  const verdict = judgeDecision(state, kind, raw);
  const deadline = (raw as DecisionInput | undefined)?.deadline;
  if (!verdict.ok || deadline === undefined || patched(DEADLINE_PATCH)) return verdict;
  return {
    ok: false,
    code: 'INVALID_DECISION',
    message: 'Unknown decision field "deadline" (this run started before decision deadlines).',
  };
}

export function refuse(verdict: Extract<Verdict, { ok: false }>): ApplicationFailure {
  return ApplicationFailure.create({
    type: FAILURE_TYPE_PREFIX + verdict.code,
    message: verdict.message,
    nonRetryable: true,
  });
}

const chunksQuery = defineQuery<ChunkSlice, [{ offset: number; limit?: number }]>(QUERIES.chunks);
const conversationQuery = defineQuery<JsonValue[], [{ upTo: number }]>(QUERIES.conversation);
const pendingQuery = defineQuery<PendingToolCall[]>(QUERIES.pendingToolCalls);
const auditQuery = defineQuery<AuditEntry[]>(QUERIES.audit);

/** Default and largest slice the chunk query returns. */
const MAX_SLICE = 1000;

/** Installs the run's signals, updates and queries (SPEC §8). */
export function installHandlers(state: RunState): void {
  for (const kind of ['approve', 'decline', 'resume'] as const) {
    setHandler(defineSignal<[DecisionInput]>(SIGNALS[kind]), (input) => {
      const verdict = judgeSignal(state, kind, input);
      if (verdict.ok) {
        state.apply(verdict.call, verdict.decision, 'signal');
        forwardDecision(state, verdict.call, kind, verdict.decision).catch((error: unknown) =>
          log.warn('Could not pass a decision to a sub-agent run', { error: String(error) }),
        );
        return;
      }
      // Signals cannot answer; the refusal is kept in the audit trail and the run is unchanged.
      const toolCallId = (input as DecisionInput | undefined)?.toolCallId;
      const decidedBy = (input as DecisionInput | undefined)?.decidedBy;
      const known = typeof toolCallId === 'string' ? state.waiting.get(toolCallId) : undefined;
      state.audit.add({
        type: 'rejected-decision',
        toolCallId: typeof toolCallId === 'string' ? toolCallId : '',
        toolName: known?.toolName ?? '',
        ...(known?.toolId !== undefined ? { toolId: known.toolId } : {}),
        kind,
        channel: 'signal',
        code: verdict.code,
        message: verdict.message,
        ...(decidedBy && typeof decidedBy === 'object' ? { decidedBy } : {}),
      });
      log.warn('Decision signal refused', { kind, code: verdict.code, message: verdict.message });
    });
    setHandler(
      defineUpdate<AppliedDecision, [DecisionInput]>(UPDATE_OF[kind]),
      async (input) => {
        const verdict = judgeDecision(state, kind, input);
        if (!verdict.ok) throw refuse(verdict);
        // Applied before any await, so a second decision in the same batch sees it taken.
        const applied = state.apply(verdict.call, verdict.decision, input.channel ?? 'update');
        await forwardDecision(state, verdict.call, kind, verdict.decision);
        return applied;
      },
      {
        validator: (input) => {
          const verdict = judgeDecision(state, kind, input);
          if (!verdict.ok) throw refuse(verdict);
        },
      },
    );
  }
  setHandler(chunksQuery, ({ offset, limit }) =>
    state.slice(offset, Math.min(limit ?? MAX_SLICE, MAX_SLICE)),
  );
  setHandler(conversationQuery, ({ upTo }) => state.messages.slice(0, upTo));
  setHandler(pendingQuery, () => state.pendingToolCalls());
  setHandler(auditQuery, () => state.audit.entries);
  installChildStatusHandler(state);
  installAutoResume(state);
  installRefusalNotes(state);
}

const UPDATE_OF: Record<DecisionKind, string> = {
  approve: UPDATES.approveToolCall,
  decline: UPDATES.declineToolCall,
  resume: UPDATES.resumeToolCall,
};
