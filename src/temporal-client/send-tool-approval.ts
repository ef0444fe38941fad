import { TollgateError } from '../common/errors.js';
import type { SendToolApprovalBody } from '../common/http-api.js';
import type { DecidedBy, DecisionKind } from '../common/run-types.js';
import type { SuspendedRun, SuspendedRuns } from './list-suspended-runs.js';
import type { JsonValue } from '../common/json.js';
import { checkId, type DecisionOptions } from './run-options.js';

/** `sendToolApproval` options (SPEC §3): find the waiting call by conversation, then decide it. */
export interface SendToolApprovalOptions extends SendToolApprovalBody {
  decidedBy?: DecidedBy;
  /** How long to wait for the run to confirm, as `DecisionOptions.wait`. */
  wait?: number | string;
}

export interface ToolApprovalTarget {
  kind: DecisionKind;
  runId: string;
  toolCallId: string;
}

/**
 * Picks the one call a thread-level decision is for, and which decision it is. No candidate, an
 * unknown id or several candidates are typed errors that list what waits.
 */
export function pickApprovalTarget(
  found: SuspendedRuns,
  options: SendToolApprovalOptions,
): ToolApprovalTarget {
  const candidates = found.runs.flatMap((run: SuspendedRun) =>
    run.toolCalls.map((call) => ({ runId: run.runId, ...call })),
  );
  const where = `thread "${options.threadId}" of resource "${options.resourceId}"`;
  const listed = candidates
    .map((c) => `${c.toolCallId} (${c.toolName}, run ${c.runId})`)
    .join(', ');
  if (candidates.length === 0) {
    throw new TollgateError('NO_PENDING_TOOL_CALL', `No tool call waits in ${where}.`);
  }
  const matches =
    options.toolCallId === undefined
      ? candidates
      : candidates.filter((c) => c.toolCallId === options.toolCallId);
  if (matches.length === 0) {
    throw new TollgateError(
      'TOOL_CALL_NOT_PENDING',
      `Tool call ${options.toolCallId} does not wait in ${where}; waiting: ${listed}.`,
    );
  }
  if (matches.length > 1) {
    throw new TollgateError(
      'AMBIGUOUS_TOOL_CALL',
      `${matches.length} tool calls wait in ${where}; pass the toolCallId of one (list them with listSuspendedRuns).`,
    );
  }
  const call = matches[0]!;
  if (!call.requiresApproval) {
    if (!options.approved) {
      throw new TollgateError(
        'WRONG_DECISION_KIND',
        `Tool call ${call.toolCallId} (${call.toolName}) was suspended by its tool and waits for resume data, not a decline.`,
      );
    }
    return { kind: 'resume', runId: call.runId, toolCallId: call.toolCallId };
  }
  return {
    kind: options.approved ? 'approve' : 'decline',
    runId: call.runId,
    toolCallId: call.toolCallId,
  };
}

/** Checks `sendToolApproval`'s options before anything is listed (`INVALID_OPTIONS`). */
export function checkSendToolApproval(options: SendToolApprovalOptions): void {
  if (
    typeof options?.threadId !== 'string' ||
    typeof options.resourceId !== 'string' ||
    typeof options.approved !== 'boolean'
  ) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      'sendToolApproval needs { threadId: string, resourceId: string, approved: boolean }.',
    );
  }
  checkId(options.threadId, 'threadId');
  checkId(options.resourceId, 'resourceId');
  if (options.toolCallId !== undefined) checkId(options.toolCallId, 'toolCallId');
}

/** The decision `sendToolApproval` applies to the call it picked. */
export function decisionFor(
  target: ToolApprovalTarget,
  options: SendToolApprovalOptions,
): DecisionOptions & { resumeData?: JsonValue } {
  const { reason, decidedBy, resumeData, wait } = options;
  return {
    runId: target.runId,
    toolCallId: target.toolCallId,
    ...(wait !== undefined ? { wait } : {}),
    ...(reason !== undefined && target.kind === 'decline' ? { reason } : {}),
    ...(decidedBy !== undefined ? { decidedBy } : {}),
    ...(target.kind === 'resume' ? { resumeData: resumeData ?? null } : {}),
  };
}
