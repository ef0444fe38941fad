import {
  AGENTS_ROUTE,
  API_PREFIX,
  APPROVALS_ROUTE,
  DECISIONS_ROUTE,
  type AgentsResponse,
  type DecisionsResponse,
  HEALTH_ROUTE,
  type ApprovalsQuery,
  type ApprovalsResponse,
  type HealthResponse,
} from '../common/http-api.js';
import type { BatchDecision, BatchDecisionResult } from '../common/batch-decisions.js';
import { TollgateHttpError } from './http-error.js';
import { RemoteAgent } from './remote-agent.js';
import { RemoteGrants } from './remote-grants.js';
import { RemoteLivePolicies } from './remote-live-policies.js';
import { Transport, type FetchLike, type RequestOptions } from './transport.js';

/** Options of `new TollgateClient(...)`. */
export interface TollgateClientOptions {
  /** The server's base URL, e.g. `https://tollgate.example.com` (routes live under `/api`). */
  baseUrl: string;
  /** A bearer token configured on the server; decisions are recorded in its identity's name. */
  token: string;
  /** Replaces the global `fetch` (tests, proxies, custom agents). */
  fetch?: FetchLike;
}

/**
 * The Tollgate HTTP API from a browser or Node: the same agent methods as the in-process
 * runtime (SPEC §3), streams parsed from Server-Sent Events, errors as `TollgateHttpError`.
 */
export class TollgateClient {
  private readonly transport: Transport;
  /** Standing approvals (docs/grants.md): `create`, `list`, `revoke`, in the token's name. */
  readonly grants: RemoteGrants;
  /** Live approval rules (docs/live-policies.md): `set` (admin), `list`. */
  readonly livePolicies: RemoteLivePolicies;

  constructor(options: TollgateClientOptions) {
    if (typeof options?.baseUrl !== 'string' || typeof options.token !== 'string') {
      throw new TypeError('TollgateClient needs { baseUrl: string, token: string }.');
    }
    this.transport = new Transport(options.baseUrl, options.token, options.fetch);
    this.grants = new RemoteGrants(this.transport);
    this.livePolicies = new RemoteLivePolicies(this.transport);
  }

  /** A handle on one agent's runs, by id. */
  getAgent(agentId: string): RemoteAgent {
    if (typeof agentId !== 'string' || agentId === '') {
      throw new TypeError('getAgent() needs an agent id.');
    }
    return new RemoteAgent(agentId, this.transport);
  }

  /**
   * The agents the server's workers published (its agent directory), each with whether a worker
   * hosting it polls now; runs of an agent not listed are refused with `AGENT_NOT_FOUND` (404).
   */
  async listAgents(options: RequestOptions = {}): Promise<AgentsResponse> {
    return this.transport.json<AgentsResponse>({
      method: 'GET',
      path: API_PREFIX + AGENTS_ROUTE,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** Waiting calls across agents (or of `agentId`), one item per call; paging counts runs. */
  listApprovals(query: ApprovalsQuery & RequestOptions = {}): Promise<ApprovalsResponse> {
    const { signal, ...filters } = query;
    return this.transport.json({
      method: 'GET',
      path: API_PREFIX + APPROVALS_ROUTE,
      query: { ...filters },
      ...(signal ? { signal } : {}),
    });
  }

  /**
   * Decides many waiting calls in one request (docs/batch-decisions.md), in the token's name:
   * each is judged by its run as if sent alone, so a refused call (`NOT_AN_APPROVER`,
   * `FINGERPRINT_MISMATCH`, ...) never stops the others. One result per decision, in order.
   */
  async decideMany(
    decisions: BatchDecision[],
    options: RequestOptions = {},
  ): Promise<BatchDecisionResult[]> {
    const answer = await this.transport.json<DecisionsResponse>({
      method: 'POST',
      path: API_PREFIX + DECISIONS_ROUTE,
      body: { decisions },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return answer.results;
  }

  /**
   * `{ ok: true, temporal: true, workers }` when the server reaches Temporal (`workers`: pollers of
   * its task queue), `{ ok: false, temporal: false }` when it does not.
   */
  async health(options: RequestOptions = {}): Promise<HealthResponse> {
    try {
      return await this.transport.json<HealthResponse>({
        method: 'GET',
        path: API_PREFIX + HEALTH_ROUTE,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (error instanceof TollgateHttpError && error.status === 503)
        return { ok: false, temporal: false };
      throw error;
    }
  }
}
