/**
 * The few Slack Web API methods Tollgate calls (`chat.postMessage`, `chat.update`,
 * `chat.postEphemeral`), over `fetch` with the bot token. Slack answers HTTP 200 with
 * `{ ok: false, error }` for most failures: those that retrying cannot fix fail for good
 * (`CHANNEL_DELIVERY_FAILED`), the rest (rate limits, 5xx, network) are thrown to be retried.
 */
import { TollgateError } from '../common/errors.js';

const CALL_TIMEOUT_MS = 10_000;

/** Slack's errors that a later attempt may not meet (its documented transient ones). */
const TRANSIENT = new Set([
  'ratelimited',
  'service_unavailable',
  'internal_error',
  'fatal_error',
  'request_timeout',
]);

/** Where and as whom the Web API is called. */
export interface SlackApi {
  apiUrl: string;
  botToken: string;
}

/** What `chat.postMessage` and `chat.update` answer that Tollgate keeps. */
export interface SlackAnswer {
  ok: boolean;
  error?: string;
  /** The message's channel id and timestamp (its id in that channel). */
  channel?: string;
  ts?: string;
}

/**
 * Calls `method` with `body`; Slack's errors listed in `expected` are answered (`ok: false`)
 * for the caller to handle, not thrown.
 */
export async function slackCall(
  api: SlackApi,
  method: 'chat.postMessage' | 'chat.update' | 'chat.postEphemeral',
  body: object,
  expected: readonly string[] = [],
): Promise<SlackAnswer> {
  let response: Response;
  try {
    response = await fetch(`${api.apiUrl}/${method}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        authorization: `Bearer ${api.botToken}`,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
  } catch (error) {
    throw new Error(`Slack's ${method} could not be reached: ${String(error)}`, { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`Slack's ${method} answered HTTP ${response.status}; it is called again.`);
  }
  const answer = (await response
    .json()
    .catch(() => ({ ok: false, error: 'invalid_json' }))) as SlackAnswer;
  const error = String(answer.error ?? 'unknown_error');
  if (answer.ok || expected.includes(error)) return answer;
  if (TRANSIENT.has(error))
    throw new Error(`Slack's ${method} failed with ${error}; it is called again.`);
  throw new TollgateError(
    'CHANNEL_DELIVERY_FAILED',
    `Slack refused ${method} with "${error}"; check the bot token, its chat:write scope and that the bot is in the channel.`,
  );
}
