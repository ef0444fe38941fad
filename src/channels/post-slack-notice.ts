/**
 * Posts a notice to an interactive Slack channel (docs/slack.md): the request is a new message
 * with buttons (`chat.postMessage`); every later notice of the call (reminder, escalation,
 * hand-off, expiry) rewrites that message in place (`chat.update`) and says what happened in a
 * reply in its thread, which notifies the people following it. Without a message to update
 * (its post failed), the notice is posted as a new message, which later notices then update.
 * A decided notice (the call was decided outside Slack) only rewrites the message to the
 * outcome, as the server does after a click; without a message it posts nothing.
 */
import type { ChannelNoticeInput } from '../common/channel-types.js';
import { headline } from './notice-text.js';
import { slackCall, type SlackApi } from './slack-api.js';
import { interactiveMessage, outcomeMessage } from './slack-buttons.js';
import { noticeBlocks } from './slack-message.js';
import { recordedEndOutcome } from './slack-outcome.js';
import type { CheckedSlackApp } from './slack-options.js';

/** Where a message is: its channel id and timestamp. The notifier activity answers it. */
export interface SlackPost {
  channel: string;
  ts: string;
}

/**
 * Finds the call's message from an earlier notice to the same target (the run's history), and
 * whether the call still waits.
 */
export interface SlackPosts {
  find(notice: ChannelNoticeInput): Promise<SlackPost | undefined>;
  stillWaits(notice: ChannelNoticeInput): Promise<boolean>;
}

export async function postSlackNotice(
  app: CheckedSlackApp,
  notice: ChannelNoticeInput,
  posts: SlackPosts,
): Promise<SlackPost | undefined> {
  const api: SlackApi = { apiUrl: app.apiUrl, botToken: app.botToken };
  const message = interactiveMessage(notice);
  const earlier = notice.kind === 'request' ? undefined : await posts.find(notice);
  if (notice.kind === 'decided') {
    if (earlier) await showOutcome(api, earlier, notice);
    return earlier;
  }
  // Decided since this notice was scheduled: the message already says the outcome.
  if (notice.kind !== 'expired' && notice.kind !== 'request' && !(await posts.stillWaits(notice))) {
    return earlier;
  }
  if (earlier && (await updateInPlace(api, earlier, message, headline(notice)))) return earlier;
  // The first post, or its message was deleted in Slack: a new message, which later ones update.
  const posted = await slackCall(api, 'chat.postMessage', { channel: app.channel, ...message });
  return posted.ts ? { channel: posted.channel ?? app.channel, ts: posted.ts } : undefined;
}

/** Rewrites the message to the outcome the notice carries; a message deleted in Slack stays so. */
async function showOutcome(api: SlackApi, post: SlackPost, notice: ChannelNoticeInput) {
  const { toolCallId, toolName, fingerprint, outcome } = notice;
  const end = outcome && {
    type: 'decision' as const,
    toolCallId,
    toolName,
    fingerprint,
    ...outcome,
  };
  const { title, detail } = recordedEndOutcome(notice, end);
  const message = outcomeMessage(noticeBlocks(notice), title, detail);
  await slackCall(api, 'chat.update', { ...post, ...message }, ['message_not_found']);
}

/** Rewrites the message and replies in its thread; false when the message is gone from Slack. */
async function updateInPlace(
  api: SlackApi,
  post: SlackPost,
  message: object,
  reply: string,
): Promise<boolean> {
  const { channel, ts } = post;
  const updated = await slackCall(api, 'chat.update', { channel, ts, ...message }, [
    'message_not_found',
  ]);
  if (!updated.ok) return false;
  await slackCall(api, 'chat.postMessage', { channel, thread_ts: ts, text: reply });
  return true;
}
