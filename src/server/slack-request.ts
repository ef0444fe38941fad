/**
 * What `POST /slack/actions` checks before anything else (docs/slack.md): Slack's request
 * signature (`X-Slack-Signature: v0=<hex>`, an HMAC-SHA256 of `v0:<timestamp>:<raw body>` under
 * the app's signing secret, compared in constant time), the timestamp's window, and that the
 * same signed request is taken once. Then the button it carries.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseButtonValue, SLACK_ACTION_IDS, type ButtonCall } from '../channels/slack-buttons.js';

/** How far a request's timestamp may be from the server's clock, seconds (Slack's advice). */
export const SLACK_TOLERANCE_SECONDS = 300;

export type SlackRequestCheck =
  | { ok: true }
  | { ok: false; code: 'SLACK_SIGNATURE_INVALID' | 'SLACK_REQUEST_STALE'; message: string };

/** The signed parts of a request as it arrived. */
export interface SlackRequest {
  body: string;
  timestamp: string | undefined;
  signature: string | undefined;
}

/**
 * Checks the signature with each secret (the first current, the others still accepted while an
 * app's secret is rotated), then the timestamp against `nowMs`: a stale request is one Slack
 * signed, so only a replay or a wrong clock sends it.
 */
export function verifySlackRequest(
  request: SlackRequest,
  secrets: readonly string[],
  nowMs: number,
  toleranceSeconds = SLACK_TOLERANCE_SECONDS,
): SlackRequestCheck {
  const { body, timestamp, signature } = request;
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || !signature?.startsWith('v0=')) {
    return invalid('carries no X-Slack-Request-Timestamp or X-Slack-Signature (v0=…)');
  }
  const given = Buffer.from(signature, 'utf8');
  const signed = secrets.some((secret) => {
    const expected = Buffer.from(slackSignature(secret, timestamp, body), 'utf8');
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!signed) return invalid("has a signature that the app's signing secret does not make");
  const skew = Math.abs(nowMs / 1000 - Number(timestamp));
  if (skew > toleranceSeconds) {
    return {
      ok: false,
      code: 'SLACK_REQUEST_STALE',
      message: `This Slack request was signed ${Math.round(skew)} s away from the server's clock (at most ${toleranceSeconds} s); a replay is refused, and a server with a wrong clock should sync it.`,
    };
  }
  return { ok: true };
}

/** `v0=` and the hex HMAC-SHA256 of `v0:<timestamp>:<body>`: how Slack signs a request. */
export function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

function invalid(why: string): SlackRequestCheck {
  return {
    ok: false,
    code: 'SLACK_SIGNATURE_INVALID',
    message: `This request ${why}; only Slack, signing with the app's signing secret, may call /slack/actions.`,
  };
}

/** Requests remembered at most; past it the oldest are forgotten (the run still decides once). */
const MAX_REMEMBERED = 10_000;

/**
 * Signatures seen within the window: a request sent again (same timestamp, body and so
 * signature) is refused while its timestamp is fresh, after which the window refuses it anyway.
 * Per process: a replay sent to another server process meets the run's own idempotency.
 */
export class SlackReplays {
  private readonly seen = new Map<string, number>();

  constructor(private readonly toleranceSeconds = SLACK_TOLERANCE_SECONDS) {}

  /** Whether this is the first time `signature` arrives; remembers it until its window ends. */
  firstUse(signature: string, timestamp: string, nowMs = Date.now()): boolean {
    for (const [key, until] of this.seen) {
      if (until > nowMs && this.seen.size < MAX_REMEMBERED) break;
      this.seen.delete(key);
    }
    if (this.seen.has(signature)) return false;
    this.seen.set(signature, (Number(timestamp) + this.toleranceSeconds) * 1000 + 1000);
    return true;
  }
}

/** One click of a Tollgate button, as the verified payload tells it. */
export interface SlackClick {
  action: 'approve' | 'decline';
  call: ButtonCall;
  userId: string;
  teamId?: string;
  /** Where the clicked message is: the channel and the message's timestamp. */
  channel: string;
  messageTs: string;
  /** The message's blocks as Slack shows them now, rewritten with the outcome. */
  blocks: object[];
}

/** The click a form body (`payload=<JSON>`) carries, or undefined when it is not a Tollgate button. */
export function parseSlackClick(body: string): SlackClick | undefined {
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(new URLSearchParams(body).get('payload') ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!payload || payload.type !== 'block_actions' || !Array.isArray(payload.actions)) {
    return undefined;
  }
  const clicked = payload.actions[0] as { action_id?: unknown; value?: unknown } | undefined;
  const action = Object.entries(SLACK_ACTION_IDS).find(([, id]) => id === clicked?.action_id)?.[0];
  const call = parseButtonValue(clicked?.value);
  const user = payload.user as { id?: unknown; team_id?: unknown } | undefined;
  const container = payload.container as { channel_id?: unknown; message_ts?: unknown } | undefined;
  const message = payload.message as { blocks?: unknown } | undefined;
  const { channel_id: channel, message_ts: messageTs } = container ?? {};
  // A user id goes into a mention (`<@U…>`): Slack's ids are letters and digits.
  if (!action || !call || typeof user?.id !== 'string' || !/^\w{1,64}$/.test(user.id)) {
    return undefined;
  }
  if (typeof channel !== 'string' || typeof messageTs !== 'string') return undefined;
  return {
    action: action as 'approve' | 'decline',
    call,
    userId: user.id,
    ...(typeof user.team_id === 'string' ? { teamId: user.team_id } : {}),
    channel,
    messageTs,
    blocks: Array.isArray(message?.blocks) ? (message.blocks as object[]) : [],
  };
}
