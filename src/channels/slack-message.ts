/**
 * A notice as a Slack incoming-webhook message: Block Kit blocks with the call's facts and
 * Approve / Decline link buttons, plus `text`, which Slack shows in notifications.
 */
import type { ChannelNoticeInput } from '../common/channel-types.js';
import { argsText, headline, type NoticeLinks } from './notice-text.js';

/** Slack's limits: a header's text, and a section's. */
const HEADER_CHARS = 150;
const ARGS_CHARS = 2800;

export function slackMessage(notice: ChannelNoticeInput, links?: NoticeLinks): object {
  const blocks = noticeBlocks(notice);
  if (links && notice.kind !== 'expired') {
    blocks.push({
      type: 'actions',
      elements: [
        button('Approve', 'primary', links.approve, 'tollgate-approve'),
        button('Decline', 'danger', links.decline, 'tollgate-decline'),
      ],
    });
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `Each button works once, until ${slackDate(links.expiresAt)}, and decides as ${escape(links.decideAs)}.`,
        },
      ],
    });
  }
  return { text: headline(notice), blocks };
}

/** The header (block id `tollgate-header`), the call's facts and its arguments. */
export function noticeBlocks(notice: ChannelNoticeInput): object[] {
  const fields = [
    field('Agent', escape(notice.agentId)),
    field('Tool', `\`${escape(notice.toolName)}\``),
    field('Run', `\`${escape(notice.runId)}\``),
    field('Fingerprint', `\`${escape(notice.fingerprint.slice(0, 16))}\``),
    ...(notice.expiresAt ? [field('Expires', slackDate(notice.expiresAt))] : []),
    ...(notice.approvers?.length ? [field('Approvers', escape(notice.approvers.join(', ')))] : []),
  ];
  return [
    headerBlock(headline(notice)),
    { type: 'section', fields },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*Arguments*\n\`\`\`${escape(argsText(notice, ARGS_CHARS))}\`\`\``,
      },
    },
  ];
}

export function headerBlock(text: string): object {
  return {
    type: 'header',
    block_id: 'tollgate-header',
    text: { type: 'plain_text', text: cut(text, HEADER_CHARS) },
  };
}

function field(name: string, value: string): object {
  return { type: 'mrkdwn', text: `*${name}*\n${value}` };
}

function button(text: string, style: string, url: string, actionId: string): object {
  return { type: 'button', text: { type: 'plain_text', text }, style, url, action_id: actionId };
}

/** Shown in each reader's time zone; the ISO text where Slack cannot format it. */
export function slackDate(iso: string): string {
  const seconds = Math.floor(Date.parse(iso) / 1000);
  return `<!date^${seconds}^{date_short_pretty} {time}|${iso}>`;
}

/** mrkdwn control characters (Slack's escaping rules). */
export function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
