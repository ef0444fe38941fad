import type { Context, Hono } from 'hono';
import {
  API_PREFIX,
  AGENT_ROUTES,
  type AgentRouteName,
  type AuditTrailResponse,
  type ForksResponse,
  type MoveRunResponse,
  type PendingToolCallsResponse,
  type SendToolApprovalResponse,
  type SuspendedRunsResponse,
} from '../common/http-api.js';
import type { AgentClient } from '../temporal-client/agent-client.js';
import type { Tollgate } from '../runtime.js';
import type { ServerEnv } from './auth.js';
import type { ErrorLogger } from './errors.js';
import {
  approveBody,
  declineBody,
  handOffBody,
  forkBody,
  moveRunBody,
  observeBody,
  pendingToolCallsQuery,
  resumeBody,
  sendToolApprovalBody,
  streamBody,
  suspendedRunsQuery,
} from './schemas.js';
import { sseResponse } from './sse.js';
import { readBody, readQuery } from './validation.js';

type AgentContext = Context<ServerEnv>;

/**
 * The per-agent routes of `common/http-api.ts` under `/api/agents/:agentId`. Every decision is
 * made in the name of the token's identity; the body cannot say who decided. Every call is held
 * to the token's scope; a run of another agent than the path's is 404 `RUN_NOT_FOUND`.
 */
export function registerAgentRoutes(
  app: Hono<ServerEnv>,
  tollgate: Tollgate,
  log: ErrorLogger,
): void {
  const path = (route: AgentRouteName) => `${API_PREFIX}/agents/:agentId${AGENT_ROUTES[route]}`;
  // The handle holds every call to the token's scope (403 FORBIDDEN, or 404 for runs it may not see).
  const agentOf = (c: AgentContext): AgentClient =>
    tollgate.getAgent(c.req.param('agentId')!, {
      scope: c.get('scope'),
      identity: c.get('identity'),
    });
  const decidedBy = (c: AgentContext) => c.get('identity');

  app.post(path('stream'), async (c) => {
    const { messages, options } = await readBody(c, streamBody);
    return sseResponse(c, await agentOf(c).stream(messages, options), log);
  });
  app.post(path('generate'), async (c) => {
    const { messages, options } = await readBody(c, streamBody);
    return c.json(await agentOf(c).generate(messages, options));
  });

  app.post(path('approveToolCall'), async (c) => {
    const body = await readBody(c, approveBody);
    const stream = await agentOf(c).approveToolCall({ ...body, decidedBy: decidedBy(c) });
    return sseResponse(c, stream, log);
  });
  app.post(path('approveToolCallGenerate'), async (c) => {
    const body = await readBody(c, approveBody);
    return c.json(await agentOf(c).approveToolCallGenerate({ ...body, decidedBy: decidedBy(c) }));
  });
  app.post(path('declineToolCall'), async (c) => {
    const body = await readBody(c, declineBody);
    const stream = await agentOf(c).declineToolCall({ ...body, decidedBy: decidedBy(c) });
    return sseResponse(c, stream, log);
  });
  app.post(path('declineToolCallGenerate'), async (c) => {
    const body = await readBody(c, declineBody);
    return c.json(await agentOf(c).declineToolCallGenerate({ ...body, decidedBy: decidedBy(c) }));
  });

  app.post(path('handOffToolCall'), async (c) => {
    const body = await readBody(c, handOffBody);
    return c.json(await agentOf(c).handOffToolCall({ ...body, decidedBy: decidedBy(c) }));
  });

  app.post(path('resumeStream'), async (c) => {
    const { resumeData, ...target } = await readBody(c, resumeBody);
    const stream = await agentOf(c).resumeStream(resumeData, {
      ...target,
      decidedBy: decidedBy(c),
    });
    return sseResponse(c, stream, log);
  });
  app.post(path('resumeGenerate'), async (c) => {
    const { resumeData, ...target } = await readBody(c, resumeBody);
    return c.json(
      await agentOf(c).resumeGenerate(resumeData, { ...target, decidedBy: decidedBy(c) }),
    );
  });

  app.post(path('sendToolApproval'), async (c) => {
    const body = await readBody(c, sendToolApprovalBody);
    const answer: SendToolApprovalResponse = await agentOf(c).sendToolApproval({
      ...body,
      decidedBy: decidedBy(c),
    });
    return c.json(answer);
  });
  app.post(path('observe'), async (c) => {
    const body = await readBody(c, observeBody);
    return sseResponse(c, await agentOf(c).observe(body), log);
  });

  app.get(path('suspendedRuns'), async (c) => {
    const answer: SuspendedRunsResponse = await agentOf(c).listSuspendedRuns(
      readQuery(c, suspendedRunsQuery),
    );
    return c.json(answer);
  });
  app.get(path('audit'), async (c) => {
    const { runId } = readQuery(c, pendingToolCallsQuery);
    const answer: AuditTrailResponse = { entries: await agentOf(c).getAuditTrail(runId) };
    return c.json(answer);
  });
  // An operator's move, in the token's name: the run must be the path agent's (else 404).
  app.post(path('moveRun'), async (c) => {
    const { runId, ...options } = await readBody(c, moveRunBody);
    const answer: MoveRunResponse = await tollgate.deployments.move(runId, {
      ...options,
      agentId: c.req.param('agentId')!,
      scope: c.get('scope'),
      identity: decidedBy(c),
    });
    return c.json(answer);
  });
  // A fork is started in the token's name; the token must be able to read the original.
  app.post(path('fork'), async (c) => {
    const body = await readBody(c, forkBody);
    return sseResponse(c, await agentOf(c).fork(body), log);
  });
  app.get(path('forks'), async (c) => {
    const { runId } = readQuery(c, pendingToolCallsQuery);
    const answer: ForksResponse = { forks: await agentOf(c).listForks(runId) };
    return c.json(answer);
  });
  app.get(path('pendingToolCalls'), async (c) => {
    const { runId } = readQuery(c, pendingToolCallsQuery);
    const answer: PendingToolCallsResponse = {
      toolCalls: await agentOf(c).pendingToolCalls(runId),
    };
    return c.json(answer);
  });
}
