import type { ChannelNoticeInput } from '../common/channel-types.js';

/** The Approve and Decline links of one notice, when the webhook has links. */
export interface NoticeLinks {
  approve: string;
  decline: string;
  /** ISO-8601: when both stop working. */
  expiresAt: string;
  /** Who they decide as. */
  decideAs: string;
}

/** One line saying what happened, for notification previews and plain receivers. */
export function headline(notice: ChannelNoticeInput): string {
  const tool = notice.toolName;
  switch (notice.kind) {
    case 'request':
      return `Approval needed: ${tool} (agent ${notice.agentId})`;
    case 'reminder':
      return `Still waiting for approval: ${tool} (agent ${notice.agentId}, ${waited(notice.waitedMs ?? 0)})`;
    case 'expired':
      return `Approval expired: ${tool} (agent ${notice.agentId}); handled as ${notice.onTimeout ?? 'decline'}`;
    case 'escalation':
      return `Approval escalated to ${approversText(notice)}: ${tool} (agent ${notice.agentId}, ${waited(notice.waitedMs ?? 0)})`;
    case 'decided': {
      const word = notice.outcome?.decision === 'declined' ? 'Declined' : 'Approved';
      return `${word}: ${tool} (agent ${notice.agentId})`;
    }
    case 'hand-off': {
      const by = notice.reassigned?.by?.id ?? 'an approver';
      const note = notice.reassigned?.note ? `: ${notice.reassigned.note}` : '';
      return `Approval handed off to ${approversText(notice)} by ${by}: ${tool} (agent ${notice.agentId})${note}`;
    }
  }
}

function approversText(notice: ChannelNoticeInput): string {
  return (notice.reassigned?.to ?? notice.approvers ?? []).join(', ');
}

export function waited(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `${Math.round(ms / 1000)} s`;
  if (minutes < 120) return `${minutes} min`;
  return `${Math.round(minutes / 60)} h`;
}

/** Arguments as indented JSON, cut to `max` characters. */
export function argsText(notice: ChannelNoticeInput, max: number): string {
  const text = JSON.stringify(notice.args, null, 2) ?? 'null';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
