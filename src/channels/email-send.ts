/**
 * Sends one notice as one mail to one recipient over SMTP (the notifier activity's body for an
 * email target, docs/email.md). Links are minted here, at send time, as the recipient's identity.
 * The SMTP server refusing the mail for good (a 5xx reply, failed authentication) fails the
 * notice with `CHANNEL_DELIVERY_FAILED`; anything else (no connection, a timeout, a 4xx reply) is
 * thrown to be retried, under the same Message-ID.
 */
import nodemailer from 'nodemailer';
import type { ChannelNoticeInput } from '../common/channel-types.js';
import { TollgateError } from '../common/errors.js';
import type { CheckedChannels } from './channel-options.js';
import type { CheckedEmail, CheckedRecipient } from './email-options.js';
import { noticeMail } from './email-message.js';
import { mintLinks, NOTICE_ID_HEADER } from './post-notice.js';

/** Connecting, the server's greeting, and silence within a session, ms: all inside the activity's 30 s. */
const CONNECT_TIMEOUT_MS = 8_000;
const SOCKET_TIMEOUT_MS = 15_000;

export async function sendNoticeMail(
  channels: CheckedChannels & { email: CheckedEmail },
  recipient: CheckedRecipient,
  notice: ChannelNoticeInput,
  now = Date.now(),
): Promise<void> {
  const { email } = channels;
  const links =
    recipient.links && notice.kind !== 'expired'
      ? mintLinks(channels, recipient.decideAs, notice, now)
      : undefined;
  const mail = noticeMail(notice, email.domain, links);
  const { smtp } = email;
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.tls === 'implicit',
    requireTLS: smtp.tls === 'starttls',
    ignoreTLS: smtp.tls === 'none',
    ...(smtp.auth ? { auth: smtp.auth } : {}),
    connectionTimeout: CONNECT_TIMEOUT_MS,
    greetingTimeout: CONNECT_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
  });
  try {
    await transport.sendMail({
      from: email.from,
      to: recipient.address,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      messageId: mail.messageId,
      ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo, references: mail.references } : {}),
      headers: {
        [NOTICE_ID_HEADER]: notice.noticeId,
        // RFC 3834: out-of-office replies and other robots leave it alone.
        'Auto-Submitted': 'auto-generated',
      },
    });
  } catch (error) {
    throw deliveryError(error, recipient);
  } finally {
    transport.close();
  }
}

/** SMTP's own verdict: 5xx and refused credentials are permanent; the rest may pass later. */
function deliveryError(error: unknown, recipient: CheckedRecipient): Error {
  const { code, responseCode } = (error ?? {}) as { code?: string; responseCode?: number };
  const why = error instanceof Error ? error.message : String(error);
  if ((responseCode !== undefined && responseCode >= 500) || code === 'EAUTH') {
    return new TollgateError(
      'CHANNEL_DELIVERY_FAILED',
      `The SMTP server refused the mail to ${recipient.address} (${why}); check channels.email's smtp settings and the address.`,
    );
  }
  return new Error(
    `The mail to ${recipient.address} could not be sent (${why}); it is sent again.`,
    {
      cause: error,
    },
  );
}
