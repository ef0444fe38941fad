/**
 * What a token of `kind: 'agent'` may not do on the HTTP API (docs/a2a.md "Agents as callers"):
 * approve a call whose rules do not name it, or reach an approval by another road (a grant, a
 * hand-off to itself, a batch, a chat answer, a live rule that stops asking). Declining and
 * answering suspended calls stay open to it: they never let a gated call run.
 */
import type { MiddlewareHandler } from 'hono';
import { requireAgentApprover } from '../common/agent-approver.js';
import { TollgateError } from '../common/errors.js';
import { AGENT_ROUTES, API_PREFIX, DECISIONS_ROUTE, GRANTS_ROUTE } from '../common/http-api.js';
import { LIVE_POLICIES_ROUTE } from '../common/live-policy.js';
import type { Tollgate } from '../runtime.js';
import type { ServerEnv } from './auth.js';
import { CHAT_ROUTE } from './chat/chat-handler.js';

const AGENT_PATH = new RegExp(`^${API_PREFIX}/agents/([^/]+)(/[^/]+)$`);
const CLOSED_AGENT_ROUTES: string[] = [
  AGENT_ROUTES.sendToolApproval,
  AGENT_ROUTES.handOffToolCall,
  CHAT_ROUTE,
];
const APPROVE_ROUTES: string[] = [
  AGENT_ROUTES.approveToolCall,
  AGENT_ROUTES.approveToolCallGenerate,
];
const CLOSED_PREFIXES = [DECISIONS_ROUTE, GRANTS_ROUTE, LIVE_POLICIES_ROUTE].map(
  (r) => API_PREFIX + r,
);

/** Holds agent callers to the rule above; every other caller passes untouched. */
export function agentCallerLimits(tollgate: Tollgate): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    if (c.get('kind') !== 'agent' || c.req.method === 'GET') return next();
    const path = c.req.path;
    const identity = c.get('identity');
    const [, agentId, route] = AGENT_PATH.exec(path) ?? [];
    const revoke = c.req.method === 'DELETE' && path.startsWith(API_PREFIX + GRANTS_ROUTE);
    if (
      (route && CLOSED_AGENT_ROUTES.includes(route)) ||
      (!revoke && CLOSED_PREFIXES.some((p) => path.startsWith(p)))
    ) {
      throw refused(identity.id, path);
    }
    if (agentId && route && APPROVE_ROUTES.includes(route)) {
      const body = parsed(await c.req.text());
      if (body.grant !== undefined) throw refused(identity.id, `${path} with a grant`);
      const agent = tollgate.getAgent(decodeURIComponent(agentId), {
        scope: c.get('scope'),
        identity,
      });
      if (typeof body.runId === 'string') {
        const pending = await agent.pendingToolCalls(body.runId);
        const call =
          pending.find((p) => p.toolCallId === body.toolCallId) ??
          (body.toolCallId === undefined && pending.length === 1 ? pending[0] : undefined);
        if (call) requireAgentApprover(call, identity);
        else if (body.toolCallId === undefined && pending.length > 1)
          throw new TollgateError(
            'AMBIGUOUS_TOOL_CALL',
            `Run ${body.runId} waits on several calls; an agent names the one it approves with toolCallId.`,
          );
      }
    }
    return next();
  };
}

function parsed(text: string): { runId?: unknown; toolCallId?: unknown; grant?: unknown } {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    // The route answers a malformed body itself.
    return {};
  }
}

function refused(agentId: string, what: string): TollgateError {
  return new TollgateError(
    'AGENT_MAY_NOT_APPROVE',
    `Agent "${agentId}" may not use ${what}: an agent's token approves only calls whose rules name it, one call at a time (approveToolCall with runId and toolCallId, or A2A); ask a person.`,
  );
}
