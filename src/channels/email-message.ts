/**
 * A notice as one mail to one recipient (docs/email.md): a subject, a text part and an HTML
 * part with the call's facts, its arguments and the Approve / Decline links, and Message-IDs
 * that thread a call's reminders and expiry under its request. Pure: the same notice to the same
 * recipient gives the same mail, so a retried activity sends the same message again.
 */
import { createHash } from 'node:crypto';
import type { ChannelNoticeInput } from '../common/channel-types.js';
import { escapeHtml } from '../common/html-escape.js';
import { argsText, headline, type NoticeLinks } from './notice-text.js';

/** Arguments shown in a mail, characters; the rest is cut (the link page shows them whole). */
export const MAIL_ARGS_CHARS = 10_000;
/** Longest subject, characters. */
const SUBJECT_CHARS = 200;

/** What nodemailer needs besides the envelope. */
export interface NoticeMail {
  subject: string;
  text: string;
  html: string;
  messageId: string;
  /** Follow-ups (reminders, expiry, escalation, hand-off): the request's Message-ID. */
  inReplyTo?: string;
  references?: string;
}

export function noticeMail(
  notice: ChannelNoticeInput,
  domain: string,
  links: NoticeLinks | undefined,
): NoticeMail {
  const ids = mailIds(notice, domain);
  // One subject for the whole thread: clients that thread by subject (Gmail) keep it together.
  const subject = oneLine(
    `Approval needed: ${notice.toolName} (agent ${notice.agentId})`,
    SUBJECT_CHARS,
  );
  const title = headline(notice);
  const facts = factsOf(notice);
  const args = argsText(notice, MAIL_ARGS_CHARS);
  return {
    subject: ids.inReplyTo ? `Re: ${subject}` : subject,
    text: textPart(title, facts, args, links),
    html: htmlPart(title, facts, args, links),
    messageId: ids.messageId,
    ...(ids.inReplyTo ? { inReplyTo: ids.inReplyTo, references: ids.inReplyTo } : {}),
  };
}

/**
 * `<tollgate.<hash>.<kind>[.<n>]@<domain>>`: the hash names the call and the recipient (run,
 * call, when it started to wait, target), so ids stay apart across recipients and across runs
 * that reuse an id; the suffix is the notice's place in the thread.
 */
export function mailIds(
  notice: ChannelNoticeInput,
  domain: string,
): { messageId: string; inReplyTo?: string } {
  const call = [notice.runId, notice.toolCallId, notice.requestedAt, notice.target].join('\n');
  const hash = createHash('sha256').update(call).digest('hex').slice(0, 32);
  const prefix = `${notice.runId}/${notice.toolCallId}/`;
  const place = notice.noticeId.startsWith(prefix)
    ? notice.noticeId.slice(prefix.length)
    : notice.kind;
  const id = (suffix: string) => `<tollgate.${hash}.${suffix.replace(/[^\w-]+/g, '.')}@${domain}>`;
  const messageId = id(place);
  return notice.kind === 'request' ? { messageId } : { messageId, inReplyTo: id('request') };
}

function factsOf(notice: ChannelNoticeInput): Array<[string, string]> {
  return [
    ['Agent', notice.agentId],
    ['Tool', notice.toolName],
    ['Run', notice.runId],
    ['Call', notice.toolCallId],
    ['Fingerprint', notice.fingerprint.slice(0, 16)],
    ['Deadline', notice.expiresAt ?? 'none'],
    ...(notice.approvers?.length
      ? [['Approvers', notice.approvers.join(', ')] as [string, string]]
      : []),
  ];
}

function linksLine(links: NoticeLinks): string {
  return `Each link works once, until ${links.expiresAt}, and decides as ${links.decideAs}. It opens a page that shows the call; only its confirm button decides.`;
}

/**
 * Arguments come last and as JSON, whose strings cannot hold a line break: text an agent puts
 * in them cannot pose as a line of this mail, such as a link of its own.
 */
function textPart(
  title: string,
  facts: Array<[string, string]>,
  args: string,
  links: NoticeLinks | undefined,
): string {
  const width = Math.max(...facts.map(([name]) => name.length)) + 2;
  const lines = [title, '', ...facts.map(([name, value]) => `${`${name}:`.padEnd(width)}${value}`)];
  if (links) {
    lines.push('', `Approve: ${links.approve}`, `Decline: ${links.decline}`, '', linksLine(links));
  }
  lines.push('', 'Arguments, as the agent gave them:', args, '');
  return lines.join('\n');
}

/** Everything from the notice is escaped; the only links are Tollgate's own. */
function htmlPart(
  title: string,
  facts: Array<[string, string]>,
  args: string,
  links: NoticeLinks | undefined,
): string {
  const rows = facts
    .map(
      ([name, value]) =>
        `<tr><th align="left">${name}</th><td><code>${escapeHtml(value)}</code></td></tr>`,
    )
    .join('\n');
  const buttons = links
    ? `<p><a href="${escapeHtml(links.approve)}" style="${BUTTON}background:#1a7f37">Approve</a>
<a href="${escapeHtml(links.decline)}" style="${BUTTON}background:#cf222e">Decline</a></p>
<p style="color:#57606a">${escapeHtml(linksLine(links))}</p>`
    : '';
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body style="font-family:sans-serif">
<h2>${escapeHtml(title)}</h2>
<table>
${rows}
</table>
${buttons}
<p>Arguments, as the agent gave them:</p>
<pre style="background:#f6f8fa;padding:8px;white-space:pre-wrap">${escapeHtml(args)}</pre>
</body></html>
`;
}

const BUTTON =
  'display:inline-block;padding:8px 16px;margin-right:8px;color:#fff;text-decoration:none;border-radius:4px;';

/** Header text: no line breaks or other control characters, cut to `max`. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
