import type { ChannelNoticeInput } from '../common/channel-types.js';
import type { CheckedChannels } from './channel-options.js';
import { sendNoticeMail } from './email-send.js';
import { postNotice } from './post-notice.js';
import type { SlackPost, SlackPosts } from './post-slack-notice.js';

/**
 * Sends one notice to its target: a recipient of `channels.email` by mail, else a Slack app's
 * channel or a webhook (`postNotice`), which answers where a Slack message is. A decided notice
 * is only for Slack apps' messages.
 */
export async function deliverNotice(
  channels: CheckedChannels,
  notice: ChannelNoticeInput,
  posts?: SlackPosts,
): Promise<SlackPost | undefined> {
  const { email } = channels;
  // The run sends these to Slack apps only; a target renamed into a webhook or mail gets none.
  if (notice.kind === 'decided' && !channels.slack.some((app) => app.name === notice.target)) {
    return undefined;
  }
  const recipient = email?.recipients.find((candidate) => candidate.target === notice.target);
  if (email && recipient) {
    await sendNoticeMail({ ...channels, email }, recipient, notice);
    return undefined;
  }
  return postNotice(channels, notice, posts);
}
