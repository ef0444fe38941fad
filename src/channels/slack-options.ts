/**
 * Interactive Slack (docs/slack.md): notices posted by a Slack app's bot with `chat.postMessage`,
 * whose buttons decide in Slack itself through the server's `POST /slack/actions`.
 */
import { TollgateError } from '../common/errors.js';
import { idProblem } from '../common/limits.js';
import { checkUrl } from './option-checks.js';

/** Env var holding the bot token (`xoxb-…`) of the Slack app, when `botToken` is not given. */
export const SLACK_BOT_TOKEN_ENV = 'TOLLGATE_SLACK_BOT_TOKEN';
/** Slack's Web API. */
export const SLACK_API_URL = 'https://slack.com/api';

/** One Slack channel that gets notices with buttons that decide in Slack (`channels.slack[]`). */
export interface SlackAppOptions {
  /** Unique among `webhooks` and `slack`: the notice target's name. */
  name: string;
  /** The Slack channel's id (`C0123ABCD`, as Slack's "copy link" shows it); the bot must be in it. */
  channel: string;
  /**
   * The app's bot token, with the `chat:write` scope. Default: env `TOLLGATE_SLACK_BOT_TOKEN`.
   * The server that receives the buttons needs the same token to update the message.
   */
  botToken?: string;
  /** Base URL of Slack's Web API (a test's fake Slack). Default `https://slack.com/api`. */
  apiUrl?: string;
  /** Only these agents' calls. Default: every agent of the worker. */
  agents?: string[];
}

/** A checked `SlackAppOptions`: token and API URL filled in. */
export interface CheckedSlackApp {
  name: string;
  channel: string;
  botToken: string;
  apiUrl: string;
  agents?: string[];
}

function invalid(message: string): TollgateError {
  return new TollgateError('INVALID_OPTIONS', message);
}

/** The bot token given, or the env var's; refused when neither is there. */
export function slackBotToken(token: string | undefined, where: string): string {
  const found = token ?? process.env[SLACK_BOT_TOKEN_ENV];
  if (typeof found !== 'string' || found.trim() === '') {
    throw invalid(
      `${where} needs the Slack app's bot token: set ${where}.botToken or ${SLACK_BOT_TOKEN_ENV} (xoxb-…, with chat:write).`,
    );
  }
  return found.trim();
}

/** Slack's Web API base URL without a trailing slash; http(s) only. */
export function slackApiUrl(value: string | undefined, where: string): string {
  return checkUrl(value ?? SLACK_API_URL, `${where}.apiUrl`).replace(/\/+$/, '');
}

/** Checks `channels.slack`; `taken` holds the webhooks' names, which the apps may not reuse. */
export function checkSlackApps(
  apps: SlackAppOptions[] | undefined,
  taken: Set<string>,
): CheckedSlackApp[] {
  if (apps === undefined) return [];
  if (!Array.isArray(apps)) throw invalid('channels.slack must be an array of { name, channel }.');
  return apps.map((app, at) => {
    const where = `channels.slack[${at}]`;
    const problem =
      idProblem(app?.name, `${where}.name`) ?? idProblem(app?.channel, `${where}.channel`);
    if (problem) throw invalid(problem);
    if (taken.has(app.name)) {
      throw invalid(`${where}.name "${app.name}" is used twice; names must differ.`);
    }
    taken.add(app.name);
    return {
      name: app.name,
      channel: app.channel,
      botToken: slackBotToken(app.botToken, where),
      apiUrl: slackApiUrl(app.apiUrl, where),
      ...(app.agents ? { agents: app.agents } : {}),
    };
  });
}
