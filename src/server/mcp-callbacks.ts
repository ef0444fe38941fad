/**
 * `/callbacks/mcp/<token>`: signed MCP callback URLs (docs/mcp.md "URL mode"). GET (a browser
 * sent there after the page) and POST (a server's callback handler) answer the call's URL-mode
 * elicitation, as `mcp:<server>`, with `accept`, when the call still waits on the wait the URL is
 * bound to. A URL that is malformed, altered or expired is refused
 * before anything is read; one whose call waits on another question is refused; one whose call
 * waits no more answers that, changing nothing, so a second hit is harmless. Refusals count
 * against the client address's budget of `/links` refusals (`LinkRefusals`).
 */
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { verifyCallback, type CallbackClaims } from '../channels/callback-link.js';
import { TollgateError } from '../common/errors.js';
import { statusOfErrorCode, type ErrorBody } from '../common/http-api.js';
import { MCP_CALLBACKS_PREFIX, type McpCallbackAnswer } from '../common/mcp-callback.js';
import { elicitationReply } from '../common/mcp-elicitation-reply.js';
import type { PendingToolCall } from '../common/run-types.js';
import type { Tollgate } from '../runtime.js';
import type { ServerEnv } from './auth.js';
import { errorAnswer, HttpError, type ErrorLogger } from './errors.js';
import type { LinkRefusals } from './link-refusals.js';
import { answer as answerLink } from './links.js';

/** The run's refusals that mean the wait was answered meanwhile (two hits at once). */
const ANSWERED_MEANWHILE = new Set([
  'TOOL_CALL_NOT_PENDING',
  'TOOL_CALL_ALREADY_DECIDED',
  'NO_PENDING_TOOL_CALL',
  'RUN_FINISHED',
]);

/** What the callback routes need besides the app. */
export interface CallbackRoutes {
  tollgate: Tollgate;
  secrets: readonly string[];
  refusals: LinkRefusals;
  log: ErrorLogger;
}

export function registerMcpCallbackRoutes(app: Hono<ServerEnv>, routes: CallbackRoutes): void {
  const path = `${MCP_CALLBACKS_PREFIX}/:token`;
  app.use(path, async (c, next) => {
    const seconds = routes.refusals.retryAfter(routes.refusals.addressOf(c));
    if (seconds === undefined) return next();
    c.header('Retry-After', String(seconds));
    const message = `Too many refused callbacks came from your address; try again in ${seconds} s.`;
    return refusal(c, 429, 'RATE_LIMITED', message);
  });
  app.get(path, (c) => handleCallback(c, routes));
  app.post(path, (c) => handleCallback(c, routes));
}

async function handleCallback(c: Context<ServerEnv>, routes: CallbackRoutes) {
  const { tollgate, refusals, log } = routes;
  const address = refusals.addressOf(c);
  const check = verifyCallback(c.req.param('token') ?? '', routes.secrets, Date.now());
  if (!check.ok) {
    refusals.record(address, check.code, check.runId);
    return refusal(c, statusOfErrorCode(check.code), check.code, check.message);
  }
  const { claims } = check;
  try {
    checkAction(c.req.query('action'));
    const agent = tollgate.getAgent(claims.agentId);
    const call = (await agent.pendingToolCalls(claims.runId)).find(
      (pending) => pending.toolCallId === claims.toolCallId,
    );
    if (!call) return notWaiting(c, claims);
    const other = otherWait(call, claims);
    if (other) {
      refusals.record(address, 'MCP_ELICITATION_NOT_WAITING', claims.runId);
      return refusal(c, 409, 'MCP_ELICITATION_NOT_WAITING', other);
    }
    await agent.decideToolCall('resume', {
      runId: claims.runId,
      toolCallId: claims.toolCallId,
      resumeData: elicitationReply('accept'),
      decidedBy: { id: `mcp:${claims.server}` },
      channel: 'link',
    });
    const body: McpCallbackAnswer = { ok: true, outcome: 'answered' };
    return answerLink(c, 200, body, 'Done', 'The call goes on; you can close this page.', true);
  } catch (error) {
    if (error instanceof TollgateError && ANSWERED_MEANWHILE.has(error.code)) {
      return notWaiting(c, claims);
    }
    const { status, body } = errorAnswer(error, log, `${c.req.method} ${MCP_CALLBACKS_PREFIX}`);
    return answerLink(
      c,
      status,
      body,
      'Not answered',
      `${body.error.code}: ${body.error.message}`,
      true,
    );
  }
}

/**
 * Only `accept`: the payload's URL is seen by whoever may read the run, and "the page is done"
 * makes no server act without checking its own state; declining or cancelling a wait takes
 * the rights to decide (the run's resume).
 */
function checkAction(given: string | undefined): void {
  if (given === undefined || given === 'accept') return;
  throw new HttpError(
    400,
    'BAD_REQUEST',
    `A callback URL only accepts (action=accept), not ${JSON.stringify(given)}; nothing was answered: decline or cancel the wait with the run's resume and elicitationReply('${given === 'cancel' ? 'cancel' : 'decline'}').`,
  );
}

/** Why the call's wait is not the one the URL answers; undefined when it is. */
function otherWait(call: PendingToolCall, claims: CallbackClaims): string | undefined {
  const payload = call.suspendPayload;
  const waits =
    typeof payload === 'object' && payload !== null && !Array.isArray(payload)
      ? payload
      : undefined;
  const same =
    waits?.kind === 'mcp-elicitation' &&
    waits.mode === 'url' &&
    waits.server === claims.server &&
    Array.isArray(waits.answered) &&
    waits.answered.length === claims.answered &&
    (claims.elicitationId === undefined || waits.elicitationId === claims.elicitationId);
  if (same) return undefined;
  return `Call ${claims.toolCallId} of run ${claims.runId} no longer waits on the page this callback URL was made for (it waits on another question now); nothing was answered: use the callbackUrl of its current suspend payload.`;
}

function notWaiting(c: Context<ServerEnv>, claims: CallbackClaims) {
  const body: McpCallbackAnswer = { ok: true, outcome: 'not-waiting' };
  const words = `Call ${claims.toolCallId} waits on no page any more (it was answered already, or its run ended); nothing was changed. You can close this page.`;
  return answerLink(c, 200, body, 'Already done', words, true);
}

function refusal(c: Context<ServerEnv>, status: number, code: string, message: string) {
  const body: ErrorBody = { error: { code, message } };
  return answerLink(c, status as ContentfulStatusCode, body, 'Not answered', message, true);
}
