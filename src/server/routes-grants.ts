import type { Hono } from 'hono';
import {
  API_PREFIX,
  GRANTS_ROUTE,
  type GrantResponse,
  type GrantsResponse,
} from '../common/http-api.js';
import type { GrantReleaseResponse } from '../common/grant-types.js';
import type { Tollgate } from '../runtime.js';
import type { ServerEnv } from './auth.js';
import { grantBody, grantsQuery } from './schemas.js';
import { readBody, readQuery } from './validation.js';

/**
 * The grant routes of `common/http-api.ts` (docs/grants.md). A grant is given and revoked in
 * the name of the token's identity, never a body's; the token's scope limits which agents and
 * resources it may grant on (`decide`), see (`read`) and revoke (`decide`).
 */
export function registerGrantRoutes(app: Hono<ServerEnv>, tollgate: Tollgate): void {
  const path = API_PREFIX + GRANTS_ROUTE;
  app.get(path, async (c) => {
    const caller = { scope: c.get('scope') };
    const body: GrantsResponse = {
      grants: await tollgate.grants.list(readQuery(c, grantsQuery), caller),
    };
    return c.json(body);
  });
  app.post(path, async (c) => {
    const input = await readBody(c, grantBody);
    const caller = { scope: c.get('scope'), identity: c.get('identity') };
    const body: GrantResponse = { grant: await tollgate.grants.create(input, caller) };
    return c.json(body, 201);
  });
  app.post(`${path}/:grantId/release`, async (c) => {
    const caller = { scope: c.get('scope'), identity: c.get('identity') };
    const body: GrantReleaseResponse = {
      release: await tollgate.grants.release(c.req.param('grantId'), caller),
    };
    return c.json(body);
  });
  app.delete(`${path}/:grantId`, async (c) => {
    const caller = { scope: c.get('scope'), identity: c.get('identity') };
    const body: GrantResponse = {
      grant: await tollgate.grants.revoke(c.req.param('grantId'), caller),
    };
    return c.json(body);
  });
}
