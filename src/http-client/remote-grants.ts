import type {
  Grant,
  GrantInput,
  GrantRelease,
  GrantReleaseResponse,
} from '../common/grant-types.js';
import {
  API_PREFIX,
  GRANTS_ROUTE,
  grantPath,
  type GrantResponse,
  type GrantsQuery,
  type GrantsResponse,
} from '../common/http-api.js';
import type { RequestOptions, Transport } from './transport.js';

/**
 * Grants over HTTP (docs/grants.md), in the token's name and within its scope. Errors arrive as
 * `TollgateHttpError`: `INVALID_GRANT` (422), `FORBIDDEN` (403), `GRANT_NOT_FOUND` (404),
 * `GRANT_ALREADY_REVOKED` (409).
 */
export class RemoteGrants {
  constructor(private readonly transport: Transport) {}

  /** Gives a grant: calls of the tool on the thread or resource run without waiting. */
  async create(input: GrantInput, options: RequestOptions = {}): Promise<Grant> {
    const answer = await this.transport.json<GrantResponse>({
      method: 'POST',
      path: API_PREFIX + GRANTS_ROUTE,
      body: input,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return answer.grant;
  }

  /** The live grants the token may see. */
  async list(query: GrantsQuery & RequestOptions = {}): Promise<Grant[]> {
    const { signal, ...filters } = query;
    const answer = await this.transport.json<GrantsResponse>({
      method: 'GET',
      path: API_PREFIX + GRANTS_ROUTE,
      query: { ...filters },
      ...(signal ? { signal } : {}),
    });
    return answer.grants;
  }

  /**
   * Approves the calls waiting now that a live grant covers, in runs the token may see, each
   * recorded as `grant-used` (docs/grant-release.md); answers which were released and refused.
   */
  async release(grantId: string, options: RequestOptions = {}): Promise<GrantRelease> {
    const answer = await this.transport.json<GrantReleaseResponse>({
      method: 'POST',
      path: `${grantPath(grantId)}/release`,
      body: {},
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return answer.release;
  }

  /** Revokes a grant; calls made from now on wait again. Answers the grant revoked. */
  async revoke(grantId: string, options: RequestOptions = {}): Promise<Grant> {
    const answer = await this.transport.json<GrantResponse>({
      method: 'DELETE',
      path: grantPath(grantId),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return answer.grant;
  }
}
