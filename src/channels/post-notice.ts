import { TollgateError } from '../common/errors.js';
import type { ChannelNoticeInput } from '../common/channel-types.js';
import type { CheckedChannels } from './channel-options.js';
import { headline, type NoticeLinks } from './notice-text.js';
import { postSlackNotice, type SlackPost, type SlackPosts } from './post-slack-notice.js';
import { signLink } from './signed-link.js';
import { slackMessage } from './slack-message.js';

/** Header naming the notice: equal on every delivery attempt of one notice. */
export const NOTICE_ID_HEADER = 'x-tollgate-notice-id';
const POST_TIMEOUT_MS = 10_000;
/** Without a run to read (a direct call): no earlier message, and the call waits. */
const NO_POSTS: SlackPosts = {
  find: () => Promise.resolve(undefined),
  stillWaits: () => Promise.resolve(true),
};

/**
 * Posts one notice to one webhook (the notifier activity's body). Links are minted here, on the
 * worker, at send time. A 4xx answer (bar 408 and 429) fails for good with
 * `CHANNEL_DELIVERY_FAILED`; a network error, timeout or 5xx is thrown to be retried. An
 * interactive Slack target's notice answers where its message is (recorded in the run's history).
 */
export async function postNotice(
  channels: CheckedChannels,
  notice: ChannelNoticeInput,
  posts: SlackPosts = NO_POSTS,
  now = Date.now(),
): Promise<SlackPost | undefined> {
  const app = channels.slack.find((candidate) => candidate.name === notice.target);
  if (app) return postSlackNotice(app, notice, posts);
  const hook = channels.webhooks.find((candidate) => candidate.name === notice.target);
  if (!hook) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `No webhook named "${notice.target}" in this worker's channels; add it back or let the notice go.`,
    );
  }
  const links =
    hook.links && notice.kind !== 'expired'
      ? mintLinks(channels, hook.decideAs, notice, now)
      : undefined;
  const body = hook.format === 'slack' ? slackMessage(notice, links) : jsonEvent(notice, links);
  let response: Response;
  try {
    response = await fetch(hook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [NOTICE_ID_HEADER]: notice.noticeId,
        ...hook.headers,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(POST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new Error(`Webhook "${hook.name}" could not be reached: ${String(error)}`, {
      cause: error,
    });
  }
  await response.body?.cancel();
  if (response.ok) return undefined;
  const status = response.status;
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
    throw new TollgateError(
      'CHANNEL_DELIVERY_FAILED',
      `Webhook "${hook.name}" refused the notice with HTTP ${status}; check its URL and headers.`,
    );
  }
  throw new Error(`Webhook "${hook.name}" answered HTTP ${status}; the notice is sent again.`);
}

/** The Approve and Decline links of `notice`, deciding as `decideAs` (webhooks and mail). */
export function mintLinks(
  channels: CheckedChannels,
  decideAs: { id: string; roles?: string[] },
  notice: ChannelNoticeInput,
  now: number,
): NoticeLinks {
  const callDeadline = notice.expiresAt ? Date.parse(notice.expiresAt) : Infinity;
  const expiresAt = Math.min(now + channels.linkTtlMs, callDeadline);
  const link = (action: 'approve' | 'decline') =>
    `${channels.publicUrl}/links/${signLink(
      {
        agentId: notice.agentId,
        runId: notice.runId,
        toolCallId: notice.toolCallId,
        fingerprint: notice.fingerprint,
        action,
        decidedBy: decideAs,
        expiresAt,
      },
      channels.signingSecret,
    )}`;
  return {
    approve: link('approve'),
    decline: link('decline'),
    expiresAt: new Date(expiresAt).toISOString(),
    decideAs: decideAs.id,
  };
}

/** The generic webhook's body: the notice's facts, its links, and a one-line `text`. */
function jsonEvent(notice: ChannelNoticeInput, links: NoticeLinks | undefined): object {
  const { target: _target, kind, ...facts } = notice;
  return {
    type: `tollgate.approval.${kind}`,
    text: headline(notice),
    ...facts,
    ...(links ? { links } : {}),
  };
}
