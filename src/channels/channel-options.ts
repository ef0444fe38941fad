import { parseDuration } from '../common/approval-rules.js';
import { TollgateError } from '../common/errors.js';
import { idProblem } from '../common/limits.js';
import type { DecidedBy } from '../common/run-types.js';
import type { ChannelManifest } from '../common/channel-types.js';
import { checkEmail, emailTargets, type CheckedEmail, type EmailOptions } from './email-options.js';
import { checkSlackApps, type CheckedSlackApp, type SlackAppOptions } from './slack-options.js';
import { CHANNELS_SECRET_ENV, checkUrl, signingSecrets } from './option-checks.js';

const DEFAULT_LINK_TTL_MS = 24 * 3_600_000;

/** One incoming webhook that gets approval notices. */
export interface WebhookOptions {
  /** Unique name; links decide as `channel:<name>` unless `decideAs` says otherwise. */
  name: string;
  /** The webhook's URL, e.g. a Slack incoming webhook `https://hooks.slack.com/services/…`. */
  url: string;
  /** `'slack'` (Block Kit message with buttons) or `'json'` (a plain JSON event). Default `'slack'`. */
  format?: 'slack' | 'json';
  /**
   * Who the links of this webhook decide as: judged by the run against the call's approvers,
   * quorum and requester rules like any other decider. Default `{ id: 'channel:<name>' }`.
   */
  decideAs?: DecidedBy;
  /** Only these agents' calls. Default: every agent of the worker. */
  agents?: string[];
  /** Approve / Decline links in the notices. Default `true`. */
  links?: boolean;
  /** Extra request headers, e.g. an authorization header of a generic receiver. */
  headers?: Record<string, string>;
}

/** `new Tollgate({ channels })`: where the worker posts waiting calls (docs/channels.md). */
export interface ChannelsOptions {
  /**
   * Where approvers reach Tollgate's HTTP server; links are `<publicUrl>/links/<token>`, MCP
   * callback URLs `<publicUrl>/callbacks/mcp/<token>`.
   */
  publicUrl: string;
  /**
   * Incoming webhooks (Slack or JSON) whose buttons are signed links; at least one of `webhooks`,
   * `slack` and `email` must be given. Default: none.
   */
  webhooks?: WebhookOptions[];
  /** Slack channels whose buttons decide in Slack itself (docs/slack.md). Default: none. */
  slack?: SlackAppOptions[];
  /** Notices by mail over SMTP, one per recipient (docs/email.md). Default: none. */
  email?: EmailOptions;
  /**
   * HMAC key of the links and of MCP callback URLs (docs/mcp.md "URL mode"), at least 32
   * characters; the HTTP server that verifies them needs the same. Default: env
   * `TOLLGATE_CHANNELS_SECRET`. Needed when a webhook has links, or mail is on.
   */
  signingSecret?: string;
  /** How long a link stays valid after its notice, capped by the call's deadline. Default `'24 hours'`. */
  linkTtl?: string | number;
  /** Post a reminder while a call waits, every so long (`'30 minutes'`). Default: no reminders. */
  remindEvery?: string | number;
}

/** Options checked once, at construction: durations in ms, every default filled in. */
export interface CheckedChannels {
  publicUrl: string;
  webhooks: Array<
    Required<Pick<WebhookOptions, 'name' | 'url' | 'format' | 'decideAs' | 'links'>> &
      WebhookOptions
  >;
  slack: CheckedSlackApp[];
  /**
   * Empty when neither a webhook with links nor mail is configured and no secret is given
   * (nothing is signed then: no links, no MCP callback URLs).
   */
  signingSecret: string;
  linkTtlMs: number;
  remindEveryMs?: number;
  email?: CheckedEmail;
}

function invalid(message: string): TollgateError {
  return new TollgateError('INVALID_OPTIONS', message);
}

export function checkChannels(options: ChannelsOptions): CheckedChannels {
  if (!options || typeof options !== 'object') throw invalid('channels must be an object.');
  const publicUrl = checkUrl(options.publicUrl, 'channels.publicUrl').replace(/\/+$/, '');
  const listed = options.webhooks ?? [];
  const others = Boolean(options.slack?.length) || options.email !== undefined;
  if (!Array.isArray(listed) || (listed.length === 0 && !others)) {
    throw invalid(
      'channels.webhooks must list at least one { name, url }, or give channels.slack or channels.email.',
    );
  }
  const names = new Set<string>();
  const webhooks = listed.map((hook, at) => {
    const where = `channels.webhooks[${at}]`;
    const problem = idProblem(hook?.name, `${where}.name`);
    if (problem) throw invalid(problem);
    if (names.has(hook.name))
      throw invalid(`${where}.name "${hook.name}" is used twice; names must differ.`);
    names.add(hook.name);
    const format = hook.format ?? 'slack';
    if (format !== 'slack' && format !== 'json') {
      throw invalid(`${where}.format must be 'slack' or 'json', not ${JSON.stringify(format)}.`);
    }
    const decideAs = hook.decideAs ?? { id: `channel:${hook.name}` };
    if (typeof decideAs.id !== 'string' || decideAs.id === '') {
      throw invalid(`${where}.decideAs must be { id: string, roles?: string[] }.`);
    }
    return {
      ...hook,
      url: checkUrl(hook.url, `${where}.url`),
      format,
      decideAs,
      links: hook.links ?? true,
    };
  });
  const slack = checkSlackApps(options.slack, names);
  const signs = webhooks.some((hook) => hook.links) || options.email !== undefined;
  return {
    publicUrl,
    webhooks,
    slack,
    signingSecret:
      signs || secretGiven(options) ? signingSecrets(options.signingSecret, 'channels')[0]! : '',
    linkTtlMs:
      options.linkTtl === undefined
        ? DEFAULT_LINK_TTL_MS
        : parseDuration(options.linkTtl, 'channels.linkTtl'),
    ...(options.remindEvery !== undefined
      ? { remindEveryMs: parseDuration(options.remindEvery, 'channels.remindEvery') }
      : {}),
    ...(options.email !== undefined ? { email: checkEmail(options.email, names) } : {}),
  };
}

/** A secret was given, or is in the env: MCP callback URLs are signed with it. */
function secretGiven(options: ChannelsOptions): boolean {
  return options.signingSecret !== undefined || Boolean(process.env[CHANNELS_SECRET_ENV]);
}

/** The part of the manifest for `agentId`: the webhooks, Slack channels and mail recipients that take its notices. */
export function channelManifest(
  channels: CheckedChannels | undefined,
  agentId: string,
): { channels?: ChannelManifest } {
  const forAgent = (hook: { agents?: string[] }) =>
    hook.agents === undefined || hook.agents.includes(agentId);
  const slack = (channels?.slack ?? []).filter(forAgent).map((app) => app.name);
  const targets = (channels?.webhooks ?? [])
    .filter(forAgent)
    .map((hook) => hook.name)
    .concat(slack, emailTargets(channels?.email, agentId));
  if (!channels || targets.length === 0) return {};
  return {
    channels: {
      targets,
      ...(slack.length > 0 ? { slack } : {}),
      ...(channels.remindEveryMs !== undefined ? { remindEveryMs: channels.remindEveryMs } : {}),
    },
  };
}
