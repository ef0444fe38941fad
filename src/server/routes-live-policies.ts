import type { Hono } from 'hono';
import { z } from 'zod';
import { API_PREFIX } from '../common/http-api.js';
import {
  LIVE_POLICIES_ROUTE,
  type LivePoliciesResponse,
  type LivePolicyChange,
  type LivePolicyResult,
} from '../common/live-policy.js';
import type { Tollgate } from '../runtime.js';
import type { ServerEnv } from './auth.js';
import { readBody, readQuery } from './validation.js';

const changeBody: z.ZodType<LivePolicyChange> = z.object({
  agentId: z.string().min(1),
  toolName: z.string().min(1),
  requireApproval: z.boolean().nullable(),
  reason: z.string().max(500).optional(),
});

const rulesQuery: z.ZodType<{ agentId?: string }> = z.object({
  agentId: z.string().min(1).optional(),
});

/**
 * The live approval policy routes (docs/live-policies.md). A change is made in the name of the
 * token's identity and needs `admin` on the agent with no resource limit; listing needs `read`.
 */
export function registerLivePolicyRoutes(app: Hono<ServerEnv>, tollgate: Tollgate): void {
  const path = API_PREFIX + LIVE_POLICIES_ROUTE;
  app.get(path, async (c) => {
    const caller = { scope: c.get('scope') };
    const rules = await tollgate.livePolicies.list(readQuery(c, rulesQuery), caller);
    const body: LivePoliciesResponse = { rules };
    return c.json(body);
  });
  app.post(path, async (c) => {
    const change = await readBody(c, changeBody);
    const caller = { scope: c.get('scope'), identity: c.get('identity') };
    const body: LivePolicyResult = await tollgate.livePolicies.set(change, caller);
    return c.json(body);
  });
}
