/**
 * `/links/<token>`: signed Approve / Decline links from chat notices (docs/channels.md).
 * GET shows the call and a confirm button; POST decides it, as the identity the link names,
 * bound to the call's fingerprint (with the roles its identity's token has now, when it has one:
 * rights are judged at decision time). A link that is malformed, altered or expired is refused here,
 * before any decision is sent; a link the run refuses (already decided, changed arguments, not
 * an approver) is refused there. Refusals are bounded (`LinkRefusals`): counted per client
 * address, which is answered 429 past its budget; only links this server signed are noted in
 * the run they name, each link once per refusal, so no one can grow a run's history by sending it
 * links.
 */
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { WorkflowNotFoundError } from '@temporalio/client';
import { verifyLink, type LinkCheck, type LinkClaims } from '../channels/signed-link.js';
import type { RefusedDecisionNote } from '../common/audit-types.js';
import { statusOfErrorCode, type ErrorBody } from '../common/http-api.js';
import { AGENT_RUN_WORKFLOW, REFUSED_DECISION_SIGNAL } from '../common/wire.js';
import { TollgateError } from '../common/errors.js';
import type { Tollgate } from '../runtime.js';
import type { ServerEnv } from './auth.js';
import { errorAnswer, type ErrorLogger } from './errors.js';
import { confirmPage, outcomePage } from './link-pages.js';
import type { LinkRefusals } from './link-refusals.js';
import type { TokenSource } from './token-source.js';

export const LINKS_PREFIX = '/links';

/** Refusals the run judged: they are noted in its audit (a refused update leaves no history). */
const RUN_REFUSALS = new Set([
  'TOOL_CALL_ALREADY_DECIDED',
  'TOOL_CALL_NOT_PENDING',
  'NO_PENDING_TOOL_CALL',
  'FINGERPRINT_MISMATCH',
  'WRONG_DECISION_KIND',
  'APPROVAL_EXPIRED',
  'DUPLICATE_APPROVER',
  'NOT_AN_APPROVER',
  'APPROVER_REQUIRED',
  'REQUESTER_CANNOT_APPROVE',
  'INVALID_DECISION',
  'DECISION_DEADLINE_PASSED',
  'INVALID_BUDGET_AMOUNT',
]);

const DONE = { approve: 'Approved', decline: 'Declined' } as const;

/** What the link routes need besides the app. */
export interface LinkRoutes {
  tollgate: Tollgate;
  secrets: readonly string[];
  refusals: LinkRefusals;
  log: ErrorLogger;
  /** The server's tokens: a link of an identity that has a token decides with its roles now. */
  tokens: TokenSource;
}

export function registerLinkRoutes(app: Hono<ServerEnv>, routes: LinkRoutes): void {
  const { tollgate, secrets, refusals, log } = routes;
  const path = `${LINKS_PREFIX}/:token`;
  app.use(path, async (c, next) => {
    const seconds = refusals.retryAfter(refusals.addressOf(c));
    if (seconds === undefined) return next();
    c.header('Retry-After', String(seconds));
    const message = `Too many refused decision links came from your address; try again in ${seconds} s.`;
    const body: ErrorBody = { error: { code: 'RATE_LIMITED', message } };
    return answer(c, 429, body, 'Not decided', message);
  });
  app.get(path, async (c) => {
    const token = c.req.param('token');
    const check = verifyLink(token, secrets, Date.now());
    if (!check.ok) return refuseLink(c, routes, token, check);
    const { claims } = check;
    const pending = await tollgate
      .getAgent(claims.agentId)
      .pendingToolCalls(claims.runId)
      .catch(() => []);
    const call = pending.find((candidate) => candidate.toolCallId === claims.toolCallId);
    return c.html(confirmPage(claims, call));
  });
  app.post(path, async (c) => {
    const token = c.req.param('token');
    const check = verifyLink(token, secrets, Date.now());
    if (!check.ok) return refuseLink(c, routes, token, check);
    const { claims } = check;
    try {
      const decidedBy = (await routes.tokens.identityOf(claims.decidedBy.id)) ?? claims.decidedBy;
      const applied = await tollgate.getAgent(claims.agentId).decideToolCall(claims.action, {
        runId: claims.runId,
        toolCallId: claims.toolCallId,
        fingerprint: claims.fingerprint,
        decidedBy,
        channel: 'link',
      });
      const words =
        applied.decision === 'approval-recorded'
          ? 'Your approval is recorded; the call waits for more approvals.'
          : `${DONE[claims.action]} as ${claims.decidedBy.id}; the run goes on.`;
      return answer(c, 200, { ok: true, decision: applied.decision }, DONE[claims.action], words);
    } catch (error) {
      const { status, body } = errorAnswer(error, log, `POST ${LINKS_PREFIX}`);
      if (error instanceof TollgateError && RUN_REFUSALS.has(error.code)) {
        refusals.record(refusals.addressOf(c), error.code, claims.runId);
        await noteRefusal(routes, token, claims, body.error);
      }
      return answer(c, status, body, 'Not decided', `${body.error.code}: ${body.error.message}`);
    }
  });
}

async function refuseLink(
  c: Context<ServerEnv>,
  routes: LinkRoutes,
  token: string,
  check: Extract<LinkCheck, { ok: false }>,
) {
  const claimed = check.code === 'LINK_INVALID' ? check.claimed : check.claims;
  routes.refusals.record(routes.refusals.addressOf(c), check.code, claimed?.runId);
  // An unsigned claim is where someone says they decide, not where they do: it stays out of runs.
  if (check.code === 'LINK_EXPIRED') await noteRefusal(routes, token, check.claims, check);
  const body: ErrorBody = { error: { code: check.code, message: check.message } };
  const status = statusOfErrorCode(check.code) as ContentfulStatusCode;
  return answer(c, status, body, 'Not decided', check.message);
}

/**
 * Notes the refusal of a link this server signed in the run it names, when it is an agent run
 * that still runs; the same link refused for the same reason is noted once per process.
 */
async function noteRefusal(
  { tollgate, refusals, log }: LinkRoutes,
  token: string,
  claims: LinkClaims,
  refusal: { code: string; message: string },
): Promise<void> {
  if (!refusals.firstOf(`${refusal.code} ${token}`)) return;
  const note: RefusedDecisionNote = {
    toolCallId: claims.toolCallId,
    kind: claims.action,
    channel: 'link',
    code: refusal.code,
    message: refusal.message,
    decidedBy: claims.decidedBy,
  };
  try {
    const handle = (await tollgate.client()).workflow.getHandle(claims.runId);
    const run = await handle.describe();
    if (run.type !== AGENT_RUN_WORKFLOW || run.status.name !== 'RUNNING') return;
    await handle.signal(REFUSED_DECISION_SIGNAL, note);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) log(error, 'noting a refused link in its run');
  }
}

/**
 * JSON for API clients (`Accept: application/json`, and every POST when `postIsApi`), else a page
 * for browsers. Signed links and MCP callbacks answer this way.
 */
export function answer(
  c: Context<ServerEnv>,
  status: ContentfulStatusCode,
  json: object,
  title: string,
  detail: string,
  postIsApi = false,
) {
  c.header('Cache-Control', 'no-store');
  const api = postIsApi && c.req.method === 'POST';
  if (api || (c.req.header('accept') ?? '').includes('application/json'))
    return c.json(json, status);
  return c.html(outcomePage(title, detail), status);
}
