import { condition, log } from '@temporalio/workflow';
import type { ApprovalRules, OnTimeout } from '../common/approval-rules.js';
import type { BudgetAsk } from '../common/budget.js';
import type { ModelToolCall, ToolManifest } from '../common/run-types.js';
import { sendReminder } from './activity-calls.js';
import type { Decision } from './waiting-call.js';
import { auditRef } from './audit-log.js';
import { channelNotices } from './channel-notices.js';
import { EscalationLadder } from './escalation.js';
import { handOffsOf } from './reassignment.js';
import { requesterOf, rulesOfCall } from './request-rules.js';
import { namingOf } from './tool-naming.js';
import type { ToolRunContext } from './tool-run-context.js';

export type ApprovalOutcome =
  { kind: 'decided'; decision: Decision } | { kind: 'expired'; onTimeout: OnTimeout };

/**
 * Waits for a gated call's decision under its approval rules (SPEC §10): a durable timer for the
 * deadline and one for each reminder; no polling.
 */
export async function awaitApproval(
  context: ToolRunContext,
  call: ModelToolCall,
  tool: ToolManifest,
  gate: { note?: string | undefined; definition?: string | undefined; budget?: BudgetAsk } = {},
): Promise<ApprovalOutcome> {
  const { note: gateNote, definition, budget } = gate;
  const { state } = context;
  const { rules, requester } = approvalRulesOf(context, tool);
  const requestedAt = Date.now();
  const expiresAt = rules.timeoutMs !== undefined ? requestedAt + rules.timeoutMs : undefined;
  state.wait(call, 'approve', {
    resumeSchema: tool.resumeSchema,
    terms: {
      ...(expiresAt !== undefined ? { expiresAt } : {}),
      ...(rules.approvers ? { approvers: rules.approvers } : {}),
      ...(rules.alsoApprovers ? { alsoApprovers: rules.alsoApprovers } : {}),
      ...(rules.quorum !== undefined ? { quorum: rules.quorum } : {}),
      ...(requester !== undefined ? { requester } : {}),
      ...(tool.inputSchema !== undefined ? { inputSchema: tool.inputSchema } : {}),
    },
    ...(gateNote !== undefined ? { gateNote } : {}),
    ...(definition !== undefined ? { definition } : {}),
    ...(budget !== undefined ? { budget } : {}),
  });
  const channels = channelNotices(context, call, rules, { requestedAt, expiresAt });
  channels?.post('request');
  const remindEveryMs = rules.remindEveryMs ?? channels?.remindEveryMs;
  const decided = () => state.calls.hasDecision(call.toolCallId);
  const waiting = () => state.calls.waiting.get(call.toolCallId);
  // Who decides now, for notices, once an escalation or a hand-off changed it.
  const current = () => (waiting()?.reassigned ? { approvers: waiting()!.approvers ?? [] } : {});
  const ladder = new EscalationLadder(rules.escalate ?? [], requestedAt);
  let handOffsAnnounced = 0;
  // Woken by a decision, or by a hand-off to announce; never by anything in runs without them.
  const woken = () => decided() || handOffsOf(waiting()) > handOffsAnnounced;
  for (let reminders = 0; ;) {
    const remindAt =
      remindEveryMs !== undefined ? requestedAt + (reminders + 1) * remindEveryMs : Infinity;
    const wakeAt = Math.min(expiresAt ?? Infinity, remindAt, ladder.nextAt());
    const arrived =
      wakeAt === Infinity
        ? (await condition(woken), true)
        : await condition(woken, Math.max(1, wakeAt - Date.now()));
    if (arrived && decided()) {
      channels?.decided();
      return { kind: 'decided', decision: state.calls.takeDecision(call.toolCallId)! };
    }
    if (arrived) {
      const handOffs = waiting()?.reassigned?.filter((change) => change.kind === 'hand-off') ?? [];
      for (const change of handOffs.slice(handOffsAnnounced)) {
        channels?.post('hand-off', { ...current(), reassigned: change });
      }
      handOffsAnnounced = handOffs.length;
      continue;
    }
    if (expiresAt !== undefined && Date.now() >= expiresAt) {
      const onTimeout = rules.onTimeout ?? 'decline';
      state.expire(call, onTimeout);
      channels?.post('expired', { onTimeout });
      return { kind: 'expired', onTimeout };
    }
    // Without escalation only the reminder's timer is left to have fired (as before it existed).
    if (ladder.empty || Date.now() >= remindAt) {
      reminders++;
      if (rules.remindEveryMs !== undefined) {
        await remind(context, call, rules.remindSource ?? 'tool', requestedAt, expiresAt);
      } else {
        context.state.audit.add({
          type: 'reminder',
          ...auditRef(call),
          waitedMs: Date.now() - requestedAt,
        });
      }
      channels?.post('reminder', { waitedMs: Date.now() - requestedAt, ...current() });
    }
    for (const change of ladder.fireDue(state, call, reminders)) {
      channels?.post('escalation', {
        ...current(),
        reassigned: change,
        waitedMs: Date.now() - requestedAt,
      });
    }
  }
}

/**
 * The approval rules of a call of `tool` (`rulesOfCall`), and the requester who may not approve
 * it, when its rules separate them.
 */
export function approvalRulesOf(
  context: ToolRunContext,
  tool: ToolManifest,
): { rules: ApprovalRules; requester?: string } {
  const { input, manifest } = context;
  const rules = rulesOfCall(input, tool, manifest.rules);
  const requester = requesterOf(input);
  return rules.separateRequester && typeof requester === 'string'
    ? { rules, requester }
    : { rules };
}

async function remind(
  context: ToolRunContext,
  call: ModelToolCall,
  source: 'tool' | 'agent',
  requestedAt: number,
  expiresAt: number | undefined,
): Promise<void> {
  const waitedMs = Date.now() - requestedAt;
  context.state.audit.add({ type: 'reminder', ...auditRef(call), waitedMs });
  try {
    await sendReminder(
      {
        agentId: context.manifest.agentId,
        source,
        runId: context.state.runId,
        ...auditRef(call),
        args: call.args,
        fingerprint: call.fingerprint,
        requestedAt: new Date(requestedAt).toISOString(),
        waitedMs,
        ...(expiresAt !== undefined ? { expiresAt: new Date(expiresAt).toISOString() } : {}),
        ...namingOf(context.manifest),
      },
      context.state.agentQueue,
    );
  } catch (error) {
    // A reminder that cannot be delivered must not hold up the decision it is about.
    log.warn('Reminder could not be sent', { toolCallId: call.toolCallId, error: String(error) });
  }
}
