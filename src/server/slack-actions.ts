/**
 * `POST /slack/actions`: the Request URL of a Slack app's interactivity (docs/slack.md). A click
 * on a Tollgate button arrives signed by Slack; the route verifies it, takes each signed request
 * once, maps the clicking Slack user to the approver identity the operator configured, answers
 * Slack at once (it waits 3 s at most) and then decides through the normal decision path: the
 * run judges approvers, quorum and requester rules. The outcome rewrites the message in place
 * (`chat.update`); a refusal is told to the clicker alone (`chat.postEphemeral`).
 */
import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { outcomeMessage } from '../channels/slack-buttons.js';
import { escape } from '../channels/slack-message.js';
import { slackCall, type SlackApi } from '../channels/slack-api.js';
import { slackApiUrl, slackBotToken } from '../channels/slack-options.js';
import { signingSecrets } from '../channels/option-checks.js';
import type { ErrorBody } from '../common/http-api.js';
import { TollgateError } from '../common/errors.js';
import type { DecidedBy } from '../common/run-types.js';
import type { Tollgate } from '../runtime.js';
import type { ServerEnv } from './auth.js';
import { errorAnswer, type ErrorLogger } from './errors.js';
import { decidedOutcome, recordedOutcome, type SlackOutcome } from './slack-outcome.js';
import {
  parseSlackClick,
  SlackReplays,
  verifySlackRequest,
  type SlackClick,
} from './slack-request.js';

export const SLACK_ACTIONS_ROUTE = '/slack/actions';
/** Env var holding the Slack app's signing secret, when `slack.signingSecret` is not given. */
export const SLACK_SIGNING_SECRET_ENV = 'TOLLGATE_SLACK_SIGNING_SECRET';
/** Largest interactivity request read, bytes: a payload carries the message it came from. */
const BODY_LIMIT_BYTES = 256 * 1024;

/** Who a Slack user decides as, or undefined for a user who may not decide here. */
export type SlackUserMap = (
  slackUserId: string,
  teamId: string | undefined,
) => DecidedBy | undefined | Promise<DecidedBy | undefined>;

/** `createTollgateServer({ slack })`: buttons that decide in Slack (docs/slack.md). */
export interface SlackActionsOptions {
  /**
   * Slack user id (`U0123ABCD`) → the approver identity its clicks decide as, judged by the run
   * like any decider; or a function answering it. A user not listed is refused. Required.
   */
  users: Record<string, DecidedBy> | SlackUserMap;
  /**
   * The app's signing secret (Slack: Basic Information → App Credentials), or several while it
   * is rotated (the first current). Default: env `TOLLGATE_SLACK_SIGNING_SECRET`.
   */
  signingSecret?: string | string[];
  /** The app's bot token, to update messages. Default: env `TOLLGATE_SLACK_BOT_TOKEN`. */
  botToken?: string;
  /** Base URL of Slack's Web API. Default `https://slack.com/api`. */
  apiUrl?: string;
}

/** What the route needs besides the app. */
interface SlackRoutes {
  tollgate: Tollgate;
  log: ErrorLogger;
  api: SlackApi;
  secrets: string[];
  users: SlackUserMap;
  replays: SlackReplays;
}

/** Refusals after which the call waits no more: its message loses its buttons. */
const NOT_WAITING = new Set([
  'TOOL_CALL_ALREADY_DECIDED',
  'TOOL_CALL_NOT_PENDING',
  'NO_PENDING_TOOL_CALL',
  'APPROVAL_EXPIRED',
  'RUN_FINISHED',
  'RUN_NOT_FOUND',
]);

export function registerSlackRoutes(
  app: Hono<ServerEnv>,
  tollgate: Tollgate,
  options: SlackActionsOptions,
  log: ErrorLogger,
): void {
  const routes = checkSlackActions(tollgate, options, log);
  app.post(
    SLACK_ACTIONS_ROUTE,
    bodyLimit({
      maxSize: BODY_LIMIT_BYTES,
      onError: (c) => c.json(refusal('PAYLOAD_TOO_LARGE', 'The Slack request is too large.'), 413),
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store');
      const body = await c.req.text();
      const timestamp = c.req.header('x-slack-request-timestamp');
      const signature = c.req.header('x-slack-signature');
      const check = verifySlackRequest({ body, timestamp, signature }, routes.secrets, Date.now());
      if (!check.ok) return c.json(refusal(check.code, check.message), 401);
      if (!routes.replays.firstUse(signature!, timestamp!)) {
        const message = 'This Slack request was already taken; a request is acted on once.';
        return c.json(refusal('SLACK_REQUEST_REPLAYED', message), 409);
      }
      const click = parseSlackClick(body);
      if (!click) {
        const message = 'This Slack request is not a click on a Tollgate button (block_actions).';
        return c.json(refusal('BAD_REQUEST', message), 400);
      }
      // Slack shows the clicker an error after 3 s without an answer: decide after answering.
      void settle(routes, click);
      return c.body(null, 200);
    },
  );
}

function checkSlackActions(
  tollgate: Tollgate,
  options: SlackActionsOptions,
  log: ErrorLogger,
): SlackRoutes {
  const secrets = signingSecrets(options.signingSecret, 'slack', {
    env: SLACK_SIGNING_SECRET_ENV,
    option: 'slack.signingSecret',
  });
  const users = checkSlackUsers(options.users);
  return {
    tollgate,
    log,
    api: {
      apiUrl: slackApiUrl(options.apiUrl, 'slack'),
      botToken: slackBotToken(options.botToken, 'slack'),
    },
    secrets,
    users,
    replays: new SlackReplays(),
  };
}

/** `slack.users` as a function; a listed entry that is not `{ id, roles? }` is refused now. */
function checkSlackUsers(users: SlackActionsOptions['users']): SlackUserMap {
  if (typeof users === 'function') return users;
  const invalid = (why: string) => new TollgateError('INVALID_OPTIONS', `slack.users${why}.`);
  if (typeof users !== 'object' || users === null || Array.isArray(users)) {
    throw invalid(' must map Slack user ids to { id, roles? }, or be a function answering that');
  }
  for (const [slackId, by] of Object.entries(users)) {
    const roles = (by as Partial<DecidedBy> | null)?.roles;
    if (typeof by?.id !== 'string' || by.id === '') {
      throw invalid(
        `["${slackId}"] must be { id: string, roles?: string[] }, not ${JSON.stringify(by)}`,
      );
    }
    if (
      roles !== undefined &&
      !(Array.isArray(roles) && roles.every((r) => typeof r === 'string'))
    ) {
      throw invalid(`["${slackId}"].roles must be an array of strings`);
    }
  }
  return (id) => (Object.hasOwn(users, id) ? users[id] : undefined);
}

/** Decides the click, then tells Slack; never throws (the answer to Slack is already sent). */
async function settle(routes: SlackRoutes, click: SlackClick): Promise<void> {
  const { tollgate, api, log } = routes;
  try {
    const decidedBy = await routes.users(click.userId, click.teamId);
    if (!decidedBy || typeof decidedBy.id !== 'string' || decidedBy.id === '') {
      const text = `Not decided: SLACK_USER_UNMAPPED: your Slack user ${click.userId} is not mapped to a Tollgate approver; ask the operator to add it to the server's slack.users.`;
      await ephemeral(api, click, text);
      return;
    }
    const { call, action } = click;
    try {
      const applied = await tollgate.getAgent(call.agentId).decideToolCall(action, {
        runId: call.runId,
        toolCallId: call.toolCallId,
        fingerprint: call.fingerprint,
        decidedBy,
        channel: 'slack',
      });
      if (applied.decision === 'approval-recorded') {
        await ephemeral(
          api,
          click,
          `Your approval as ${escape(decidedBy.id)} is recorded; the call waits for more approvals.`,
        );
        return;
      }
      const by = `<@${click.userId}> as ${escape(decidedBy.id)}`;
      await update(api, click, decidedOutcome(call, action, by, new Date().toISOString()));
    } catch (error) {
      const { body } = errorAnswer(error, log, `POST ${SLACK_ACTIONS_ROUTE}`);
      const { code, message } = body.error;
      await ephemeral(api, click, `Not decided: ${code}: ${escape(message)}`);
      // Decided elsewhere (or by a click a moment earlier): the message says what the run recorded.
      if (NOT_WAITING.has(code)) await update(api, click, await recordedOutcome(tollgate, call));
    }
  } catch (error) {
    log(error, `answering a Slack click on ${click.call.runId}/${click.call.toolCallId}`);
  }
}

function update(api: SlackApi, click: SlackClick, outcome: SlackOutcome) {
  const message = outcomeMessage(click.blocks, outcome.title, outcome.detail);
  return slackCall(api, 'chat.update', { channel: click.channel, ts: click.messageTs, ...message });
}

function ephemeral(api: SlackApi, click: SlackClick, text: string) {
  return slackCall(api, 'chat.postEphemeral', { channel: click.channel, user: click.userId, text });
}

function refusal(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}
