import type { ChannelNoticeInput } from '../common/channel-types.js';
import type { CheckedChannels } from './channel-options.js';
import { sendNoticeMail } from './email-send.js';
import { postNotice } from './post-notice.js';

/** Sends one notice to its target: a recipient of `channels.email` by mail, else a webhook. */
export async function deliverNotice(
  channels: CheckedChannels,
  notice: ChannelNoticeInput,
): Promise<void> {
  const { email } = channels;
  const recipient = email?.recipients.find((candidate) => candidate.target === notice.target);
  if (email && recipient) return sendNoticeMail({ ...channels, email }, recipient, notice);
  return postNotice(channels, notice);
}
