import type { Client } from '@temporalio/client';
import { approversProblem } from '../common/approval-rules.js';
import { TollgateError } from '../common/errors.js';
import { handOffUpdate } from '../common/messages.js';
import type { DecidedBy, HandedOff, HandOffInput } from '../common/run-types.js';
import type { AgentClientContext } from './agent-client-context.js';
import { sendWithinWait } from './apply-decision.js';
import { checkDecision } from './run-options.js';
import type { SeenRun } from './scope-guard.js';

/** Options of `handOffToolCall` (docs/hand-off.md). */
export interface HandOffOptions {
  runId: string;
  /** Default: the run's most recently requested call that waits for approval. */
  toolCallId?: string;
  /** When given, must equal the waiting call's fingerprint. */
  fingerprint?: string;
  /** Who decides the call from now on: an id, `role:<name>`, or a list of them (at most 50). */
  to: string | string[];
  /** Why, for the new approvers and the audit trail; at most 2,000 characters. Default: none. */
  note?: string;
  /** Who hands the call off; must be allowed to decide it now. Over HTTP: the token's identity. */
  decidedBy?: DecidedBy;
  /** How long to wait for the run to confirm, ms or `'30 seconds'`. Default: `decisions.wait`. */
  wait?: number | string;
}

/** Checks the options of a hand-off before anything is sent; `to` as a list. */
export function checkHandOffOptions(options: HandOffOptions): HandOffOptions & { to: string[] } {
  const checked = checkDecision(options, 'handOffToolCall');
  const to = typeof options.to === 'string' ? [options.to] : options.to;
  const problem = approversProblem(to, 'handOffToolCall: to');
  if (problem) throw new TollgateError('INVALID_OPTIONS', problem);
  if (options.note !== undefined && typeof options.note !== 'string') {
    throw new TollgateError('INVALID_OPTIONS', 'handOffToolCall: note must be a string.');
  }
  return { ...checked, to };
}

/** Sends a checked hand-off as an update: refused before history, answered once applied. */
export async function sendHandOff(
  context: AgentClientContext,
  agentId: string,
  client: Client,
  options: HandOffOptions & { to: string[] },
  run?: SeenRun,
): Promise<HandedOff> {
  const { toolCallId, fingerprint, to, note, decidedBy } = options;
  const input = {
    agentId,
    to,
    ...(toolCallId !== undefined ? { toolCallId } : {}),
    ...(fingerprint !== undefined ? { fingerprint } : {}),
    ...(note !== undefined ? { note } : {}),
    ...(decidedBy !== undefined ? { decidedBy } : {}),
  } satisfies HandOffInput;
  return sendWithinWait(context, client, handOffUpdate, input, options, run);
}
