import { API_PREFIX } from '../common/http-api.js';
import {
  LIVE_POLICIES_ROUTE,
  type LivePoliciesResponse,
  type LivePolicyChange,
  type LivePolicyResult,
  type LiveToolRule,
} from '../common/live-policy.js';
import type { RequestOptions, Transport } from './transport.js';

/**
 * Live approval rules over HTTP (docs/live-policies.md), in the token's name. Errors arrive as
 * `TollgateHttpError`: `FORBIDDEN` (403: no `admin`, or a token limited to resources),
 * `INVALID_OPTIONS` (422), `WORKER_UNAVAILABLE` (503).
 */
export class RemoteLivePolicies {
  constructor(private readonly transport: Transport) {}

  /**
   * Changes whether a tool of an agent waits for approval; tells its open runs. Answers the
   * rule in force and the waiting calls a relaxed rule released.
   */
  async set(change: LivePolicyChange, options: RequestOptions = {}): Promise<LivePolicyResult> {
    return this.transport.json<LivePolicyResult>({
      method: 'POST',
      path: API_PREFIX + LIVE_POLICIES_ROUTE,
      body: change,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** The rules in force the token may see, of one agent if given. */
  async list(query: { agentId?: string } & RequestOptions = {}): Promise<LiveToolRule[]> {
    const { signal, ...filters } = query;
    const answer = await this.transport.json<LivePoliciesResponse>({
      method: 'GET',
      path: API_PREFIX + LIVE_POLICIES_ROUTE,
      query: { ...filters },
      ...(signal ? { signal } : {}),
    });
    return answer.rules;
  }
}
