/**
 * What a Slack message says once its call waits no more (docs/slack.md): the decision or expiry
 * the run's audit recorded, whoever made it and through whichever channel. One rendering for
 * every path that writes it: the server after a click (its own decision, or one made elsewhere
 * that the click found), and the worker's decided notice, which the run sends when the call was
 * decided outside Slack.
 */
import type { AuditEntry } from '../common/run-types.js';
import type { ButtonCall } from './slack-buttons.js';
import { escape } from './slack-message.js';

/** The header and the line below it of a message whose call waits no more. */
export interface SlackOutcome {
  title: string;
  detail: string;
}

/** The call an outcome is about. */
export type OutcomeCall = Pick<ButtonCall, 'agentId' | 'toolCallId' | 'toolName'>;

/** The audit entry that ended a call's wait: its decision or its expiry. */
export type RecordedEnd =
  Extract<AuditEntry, { type: 'decision' }> | Extract<AuditEntry, { type: 'expiry' }>;

const WORD = { approved: 'Approved', declined: 'Declined' } as const;

/** A decision just made: `by` is mrkdwn (a mention and the escaped identity). */
export function decidedOutcome(
  call: OutcomeCall,
  action: 'approve' | 'decline',
  by: string,
  at: string,
): SlackOutcome {
  const word = action === 'approve' ? WORD.approved : WORD.declined;
  return { title: `${word}: ${subject(call)}`, detail: `${word} by ${by}, ${at}.` };
}

/**
 * The outcome a recorded entry says: who decided and through which channel, or how the expiry
 * was handled; a plain "no longer waiting" without one (or for a quorum's partial approval).
 */
export function recordedEndOutcome(call: OutcomeCall, last: RecordedEnd | undefined): SlackOutcome {
  if (last?.type === 'decision' && (last.decision === 'approved' || last.decision === 'declined')) {
    const word = WORD[last.decision];
    const by = escape(last.decidedBy?.id ?? 'an unnamed decider');
    return {
      title: `${word}: ${subject(call)}`,
      detail: `${word} by ${by} (${last.channel}), ${last.at}.`,
    };
  }
  if (last?.type === 'expiry') {
    return {
      title: `Approval expired: ${subject(call)}`,
      detail: `Handled as ${last.onTimeout}, ${last.at}.`,
    };
  }
  return {
    title: `No longer waiting: ${subject(call)}`,
    detail: 'It was decided, expired or its run ended.',
  };
}

function subject(call: OutcomeCall): string {
  return `${call.toolName ?? call.toolCallId} (agent ${call.agentId})`;
}
