/**
 * The HTTP API and inbox as `serve` and `dev` run them: tokens, the inbox directory, listening.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tollgate } from '../runtime.js';
import type { DecidedBy } from '../common/run-types.js';
import { pathExists } from '../common/path-exists.js';
import {
  createTollgateServer,
  loadAuthConfig,
  type AuthConfig,
  SLACK_ACTIONS_ROUTE,
  type SlackActionsOptions,
} from '../server/index.js';
import { UsageError } from './command-input.js';

/** Env var naming the Slack users file when `--slack-users` is not given. */
export const SLACK_USERS_FILE_ENV = 'TOLLGATE_SLACK_USERS_FILE';

export interface HttpHostOptions {
  port: number;
  /** Undefined: the server's default (127.0.0.1). */
  hostname?: string;
  /** `--tokens-file`; undefined: `TOLLGATE_TOKENS_FILE` or `TOLLGATE_TOKENS`. */
  tokensFile?: string;
  /** `--inbox`; undefined: the package's own inbox, when it has one. */
  inboxDir?: string;
  /** `--slack-users`; undefined: `TOLLGATE_SLACK_USERS_FILE`, or no Slack route (docs/slack.md). */
  slackUsersFile?: string;
  /** Identity of the one-off token made when no tokens are configured (dev only). */
  devIdentity?: string;
}

export interface HttpHost {
  /** Base URL of the API, e.g. `http://127.0.0.1:8787/api`. */
  apiUrl: string;
  /** The inbox page, or undefined when no inbox directory was found. */
  inboxUrl: string | undefined;
  /** Slack's Request URL (`…/slack/actions`), when Slack buttons are served. */
  slackActionsUrl: string | undefined;
  /** The token made up for this dev session, when no tokens were configured. */
  devToken: string | undefined;
  close(): Promise<void>;
}

export async function startHttpHost(
  tollgate: Tollgate,
  options: HttpHostOptions,
): Promise<HttpHost> {
  const { auth, devToken } = authOf(options);
  const inboxRoot = await findInbox(options.inboxDir);
  const slack = slackOf(options);
  const server = createTollgateServer({
    tollgate,
    auth,
    ...(inboxRoot ? { inbox: { root: inboxRoot } } : {}),
    ...slack,
  });
  const listening = await server.listen({
    port: options.port,
    ...(options.hostname !== undefined ? { hostname: options.hostname } : {}),
  });
  return {
    apiUrl: `${listening.url}/api`,
    inboxUrl: inboxRoot ? `${listening.url}/inbox` : undefined,
    slackActionsUrl: slack.slack ? `${listening.url}${SLACK_ACTIONS_ROUTE}` : undefined,
    devToken,
    close: () => listening.close(),
  };
}

function authOf(options: HttpHostOptions): { auth: AuthConfig; devToken: string | undefined } {
  const configured =
    options.tokensFile !== undefined ||
    Boolean(process.env.TOLLGATE_TOKENS_FILE) ||
    Boolean(process.env.TOLLGATE_TOKENS);
  if (!configured && options.devIdentity !== undefined) {
    const token = `dev-${randomBytes(16).toString('hex')}`;
    return {
      auth: { tokens: [{ token, id: options.devIdentity, roles: ['dev'] }] },
      devToken: token,
    };
  }
  return {
    auth: loadAuthConfig(options.tokensFile !== undefined ? { file: options.tokensFile } : {}),
    devToken: undefined,
  };
}

/**
 * Slack buttons when a users file is named (JSON: Slack user id → `{ id, roles? }`); the signing
 * secret and bot token come from their env vars.
 */
function slackOf(options: HttpHostOptions): { slack?: SlackActionsOptions } {
  const file = options.slackUsersFile ?? process.env[SLACK_USERS_FILE_ENV];
  if (!file) return {};
  let users: Record<string, DecidedBy>;
  try {
    users = JSON.parse(readFileSync(file, 'utf8')) as Record<string, DecidedBy>;
  } catch (error) {
    throw new UsageError(`Slack users file ${file} could not be read as JSON: ${String(error)}`);
  }
  return { slack: { users } };
}

/** Directories that may hold the inbox page, relative to this file (dist/src/cli). */
const PACKAGED_INBOX_DIRS = ['../inbox', '../../inbox', '../../../inbox'];

/** The inbox directory: `explicit` (which must hold index.html), else the package's, if any. */
async function findInbox(explicit: string | undefined): Promise<string | undefined> {
  if (explicit !== undefined) {
    const root = resolve(explicit);
    if (!(await pathExists(join(root, 'index.html')))) {
      throw new UsageError(`--inbox ${explicit}: no index.html in ${root}.`);
    }
    return root;
  }
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const dir of PACKAGED_INBOX_DIRS) {
    const root = resolve(here, dir);
    if (await pathExists(join(root, 'index.html'))) return root;
  }
  return undefined;
}
