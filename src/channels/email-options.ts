/**
 * `channels.email` (docs/email.md): the SMTP server the worker sends through, the sender, and
 * groups of recipients. Each recipient of a group is a target of its own, `<group>/<address>`:
 * one notice is one mail to one person, sent by one activity, with links that decide as that
 * person, so a retry never mails the others again.
 */
import { TollgateError } from '../common/errors.js';
import { idProblem } from '../common/limits.js';
import type { DecidedBy } from '../common/run-types.js';

/** Env var holding the SMTP password when `smtp.passwordEnv` names no other. */
export const SMTP_PASSWORD_ENV = 'TOLLGATE_SMTP_PASSWORD';
/** Most recipients in one group: each is one activity per notice. */
export const MAX_GROUP_RECIPIENTS = 50;

/** How the worker reaches its SMTP server. */
export interface SmtpOptions {
  host: string;
  /** Default 465 with `tls: 'implicit'`, 587 with `'starttls'`, 25 with `'none'`. */
  port?: number;
  /**
   * `'starttls'`: plain connection upgraded with STARTTLS, and mail is never sent without it;
   * `'implicit'`: TLS from the first byte (port 465); `'none'`: no TLS at all, only for a relay
   * on the same host or a test server. Default `'starttls'`.
   */
  tls?: 'starttls' | 'implicit' | 'none';
  /** SMTP AUTH user; without it the worker sends without authenticating. */
  user?: string;
  /**
   * Env var holding the password of `user`, read when the worker is built and kept in its memory
   * only: never in an activity's input or a run's history. Default `TOLLGATE_SMTP_PASSWORD`.
   */
  passwordEnv?: string;
}

/** One recipient: an address, and who the links in its mails decide as. */
export interface EmailRecipient {
  address: string;
  /** Default `{ id: 'email:<address>' }`; judged by the run like any other decider. */
  decideAs?: DecidedBy;
}

/** A group of recipients that gets the same agents' notices. */
export interface EmailGroupOptions {
  /** Unique among groups; its recipients' targets `<name>/<address>` must not name a webhook. */
  name: string;
  /** Addresses (deciding as `email:<address>`) or recipients with their own identity. At most 50. */
  to: Array<string | EmailRecipient>;
  /** Only these agents' calls. Default: every agent of the worker. */
  agents?: string[];
  /** Approve / Decline links in the mails. Default `true`. */
  links?: boolean;
}

/** `channels.email`: approval notices by mail, one per recipient. */
export interface EmailOptions {
  smtp: SmtpOptions;
  /** The sender, e.g. `'Tollgate <tollgate@example.com>'`; its domain ends the Message-IDs. */
  from: string;
  groups: EmailGroupOptions[];
}

/** One recipient of one group, ready to mail. */
export interface CheckedRecipient {
  target: string;
  address: string;
  decideAs: DecidedBy;
  links: boolean;
  agents?: string[];
}

/** `channels.email` checked at construction: the password read, every default filled in. */
export interface CheckedEmail {
  smtp: {
    host: string;
    port: number;
    tls: 'starttls' | 'implicit' | 'none';
    auth?: { user: string; pass: string };
  };
  from: string;
  /** The sender's domain, for Message-IDs. */
  domain: string;
  recipients: CheckedRecipient[];
}

const DEFAULT_PORTS = { starttls: 587, implicit: 465, none: 25 } as const;
/** No spaces, angle brackets, commas or quotes: an address can never add a header or recipient. */
const ADDRESS = /^[^\s@<>,;:"()[\]\\]+@[^\s@<>,;:"()[\]\\]+\.[^\s@<>,;:"()[\]\\]+$/;

function invalid(message: string): TollgateError {
  return new TollgateError('INVALID_OPTIONS', message);
}

/** Checks `channels.email`; `webhookNames` are the targets its recipients must not reuse. */
export function checkEmail(
  options: EmailOptions,
  webhookNames: ReadonlySet<string>,
  env: NodeJS.ProcessEnv = process.env,
): CheckedEmail {
  if (!options || typeof options !== 'object') throw invalid('channels.email must be an object.');
  const { from, domain } = checkFrom(options.from);
  const groups = options.groups;
  if (!Array.isArray(groups) || groups.length === 0) {
    throw invalid('channels.email.groups must list at least one { name, to }.');
  }
  const names = new Set<string>();
  const targets = new Set<string>(webhookNames);
  const recipients = groups.flatMap((group, at) => {
    const where = `channels.email.groups[${at}]`;
    const problem = idProblem(group?.name, `${where}.name`);
    if (problem) throw invalid(problem);
    if (names.has(group.name))
      throw invalid(`${where}.name "${group.name}" is used twice; names must differ.`);
    names.add(group.name);
    if (
      !Array.isArray(group.to) ||
      group.to.length === 0 ||
      group.to.length > MAX_GROUP_RECIPIENTS
    ) {
      throw invalid(`${where}.to must list 1 to ${MAX_GROUP_RECIPIENTS} addresses.`);
    }
    return group.to.map((entry, index) => {
      const recipient = typeof entry === 'string' ? { address: entry } : entry;
      const address = checkAddress(recipient?.address, `${where}.to[${index}]`);
      const decideAs = recipient.decideAs ?? { id: `email:${address}` };
      if (typeof decideAs.id !== 'string' || decideAs.id === '') {
        throw invalid(`${where}.to[${index}].decideAs must be { id: string, roles?: string[] }.`);
      }
      const target = `${group.name}/${address}`;
      if (targets.has(target)) {
        throw invalid(
          `${where}.to[${index}] makes the target "${target}" twice (or a webhook has that name); list each address once per group.`,
        );
      }
      targets.add(target);
      return {
        target,
        address,
        decideAs,
        links: group.links ?? true,
        ...(group.agents ? { agents: group.agents } : {}),
      };
    });
  });
  return { smtp: checkSmtp(options.smtp, env), from, domain, recipients };
}

function checkSmtp(smtp: SmtpOptions, env: NodeJS.ProcessEnv): CheckedEmail['smtp'] {
  if (!smtp || typeof smtp.host !== 'string' || smtp.host === '') {
    throw invalid('channels.email.smtp.host must name the SMTP server, e.g. "smtp.example.com".');
  }
  const tls = smtp.tls ?? 'starttls';
  if (!(tls in DEFAULT_PORTS)) {
    throw invalid(
      `channels.email.smtp.tls must be 'starttls', 'implicit' or 'none', not ${JSON.stringify(tls)}.`,
    );
  }
  const port = smtp.port ?? DEFAULT_PORTS[tls];
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw invalid(`channels.email.smtp.port must be a port number, not ${JSON.stringify(port)}.`);
  }
  if (smtp.user === undefined) return { host: smtp.host, port, tls };
  const passwordEnv = smtp.passwordEnv ?? SMTP_PASSWORD_ENV;
  const pass = env[passwordEnv];
  if (typeof smtp.user !== 'string' || smtp.user === '' || !pass) {
    throw invalid(
      `channels.email.smtp.user needs a password in the env var ${passwordEnv}; set it, or drop user to send without SMTP AUTH.`,
    );
  }
  return { host: smtp.host, port, tls, auth: { user: smtp.user, pass } };
}

/** `a@b.c` or `Name <a@b.c>`; the name may not hold characters that end the header. */
function checkFrom(from: unknown): { from: string; domain: string } {
  if (typeof from === 'string') {
    const named = /^([^<>"\r\n]*)<([^<>]+)>$/.exec(from.trim());
    const address = named ? named[2]! : from.trim();
    if (ADDRESS.test(address)) return { from: from.trim(), domain: address.split('@')[1]! };
  }
  throw invalid(
    `channels.email.from must be an address such as "Tollgate <tollgate@example.com>", not ${JSON.stringify(from)}.`,
  );
}

function checkAddress(address: unknown, field: string): string {
  if (typeof address === 'string' && ADDRESS.test(address)) return address;
  throw invalid(
    `${field} must be one plain address such as "alice@example.com", not ${JSON.stringify(address)}.`,
  );
}

/** The targets of `agentId`'s notices among the recipients. */
export function emailTargets(email: CheckedEmail | undefined, agentId: string): string[] {
  return (email?.recipients ?? [])
    .filter((recipient) => recipient.agents === undefined || recipient.agents.includes(agentId))
    .map((recipient) => recipient.target);
}
