/**
 * A local SMTP server for tests: it asks for a password, parses each mail with mailparser and
 * keeps it with its envelope. Addresses in `flaky` get a 451 on each message's first attempt
 * (by Message-ID), as a busy server would answer; addresses in `unknown` are refused for good.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** The envelope's recipients. */
  to: string[];
  mail: ParsedMail;
  /** Whether the server accepted it (a flaky first attempt is parsed, then refused). */
  accepted: boolean;
}

export interface SmtpInbox {
  port: number;
  received: ReceivedMail[];
  /** The accepted mails to `address`. */
  mailsTo(address: string): ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpInbox(options: {
  user: string;
  password: string;
  flaky?: string[];
  /** Addresses refused at RCPT TO with 550, as an unknown mailbox is. */
  unknown?: string[];
}): Promise<SmtpInbox> {
  const received: ReceivedMail[] = [];
  const refusedOnce = new Set<string>();
  const server = new SMTPServer({
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    hideSTARTTLS: true,
    logger: false,
    onAuth(auth, _session, done) {
      if (auth.username === options.user && auth.password === options.password) {
        done(null, { user: auth.username });
      } else {
        done(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      }
    },
    onRcptTo(address, _session, done) {
      if (!options.unknown?.includes(address.address)) return done();
      done(Object.assign(new Error('No such mailbox'), { responseCode: 550 }));
    },
    onData(stream, session, done) {
      simpleParser(stream).then(
        (mail) => {
          const to = session.envelope.rcptTo.map((rcpt) => rcpt.address);
          const key = `${to.join(',')} ${mail.messageId}`;
          const flaky = to.some((address) => options.flaky?.includes(address));
          const accepted = !flaky || refusedOnce.has(key);
          refusedOnce.add(key);
          received.push({ to, mail, accepted });
          if (accepted) done();
          else done(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        },
        (error: Error) => done(error),
      );
    },
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    received,
    mailsTo: (address) => received.filter((r) => r.accepted && r.to.includes(address)),
    close: () => new Promise((closed) => server.close(() => closed())),
  };
}
