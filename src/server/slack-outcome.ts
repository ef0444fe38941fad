/**
 * What a Slack message says once its call waits no more (docs/slack.md): the decision or expiry
 * the run's audit recorded, whoever made it and through whichever channel. A click on a message
 * whose call was decided elsewhere (the inbox, a link, the API) rewrites it with this.
 */
import type { ButtonCall } from '../channels/slack-buttons.js';
import { escape } from '../channels/slack-message.js';
import type { AuditEntry } from '../common/run-types.js';
import type { Tollgate } from '../runtime.js';

/** The header and the line below it of a message whose call waits no more. */
export interface SlackOutcome {
  title: string;
  detail: string;
}

const WORD = { approved: 'Approved', declined: 'Declined' } as const;

/** A decision just made: `by` is mrkdwn (a mention and the escaped identity). */
export function decidedOutcome(
  call: ButtonCall,
  action: 'approve' | 'decline',
  by: string,
  at: string,
): SlackOutcome {
  const word = action === 'approve' ? WORD.approved : WORD.declined;
  return { title: `${word}: ${subject(call)}`, detail: `${word} by ${by}, ${at}.` };
}

/** The call's outcome from its run's audit; a plain "no longer waiting" when it has none. */
export async function recordedOutcome(tollgate: Tollgate, call: ButtonCall): Promise<SlackOutcome> {
  const audit = await tollgate
    .getAgent(call.agentId)
    .getAuditTrail(call.runId)
    .catch((): AuditEntry[] => []);
  const last = audit
    .filter((entry) => 'toolCallId' in entry && entry.toolCallId === call.toolCallId)
    .reverse()
    .find((entry) => entry.type === 'decision' || entry.type === 'expiry');
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

function subject(call: ButtonCall): string {
  return `${call.toolName ?? call.toolCallId} (agent ${call.agentId})`;
}
