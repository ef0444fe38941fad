import type { Client } from '@temporalio/client';
import type { DecidedBy } from '../common/decision-types.js';
import { TollgateError } from '../common/errors.js';
import type {
  Grant,
  GrantInput,
  GrantRelease,
  GrantRequest,
  GrantsState,
} from '../common/grant-types.js';
import { EMPTY_GRANTS, grantRequestOf, liveGrants, unknownGrant } from '../common/grants.js';
import { grantCreateUpdate, grantRevokeUpdate } from '../common/messages.js';
import {
  maySeeRun,
  requireAction,
  requireAgent,
  requireResource,
  type Scope,
} from '../common/scope.js';
import { GRANTS_MEMO_KEY, GRANTS_WORKFLOW, grantsRegistryId } from '../common/wire.js';
import { grantsPerTool, pinsDigest, serverOfGrant } from '../common/mcp-server-grant.js';
import type { AgentDirectory } from './agent-directory.js';
import { toTollgateError } from './errors.js';
import { releaseCovered, type ReleaseDeps } from './grant-release.js';
import { McpPinRegistry } from './mcp-pins.js';
import { readRegistryMemo, startRegistry, type RegistryRef } from './registry-memo.js';
import { sendUpdate } from './send-update.js';

/** Who asks: the limits of their token and the identity grants are given in. */
export interface GrantCaller {
  /** Limits of the caller (README "Scopes"); without it, every agent and resource. */
  scope?: Scope;
  /** Recorded as `grantedBy` / `revokedBy`; a grant stands in only for this identity's approvals. */
  identity?: DecidedBy;
}

/** Filters of `list`; each left out matches every grant. */
export interface GrantFilter {
  agentId?: string;
  resourceId?: string;
  threadId?: string;
  toolName?: string;
}

/**
 * The grants of one task queue (docs/grants.md), kept in Temporal only: one open `grantsRegistry`
 * workflow, its state in its memo. Every call is held to the caller's scope: a caller grants,
 * sees and revokes grants of the agents and resources it may decide on only.
 */
export class GrantRegistry {
  constructor(
    private readonly client: () => Promise<Client>,
    readonly taskQueue: string,
    private readonly directory: AgentDirectory,
    /** Workers that polled the task queue lately (`Tollgate.workerPollers`). */
    private readonly pollers: () => Promise<number>,
    /** A handle on an agent's runs held to `scope`, whose decisions a release sends. */
    private readonly agentOf?: (agentId: string, scope?: Scope) => ReleaseDeps['agent'],
  ) {}

  /**
   * Approves the waiting calls a live grant covers (docs/grant-release.md), in runs the caller
   * may see, each in the name of who gave the grant and judged by its run as any approval.
   *
   * @throws TollgateError `GRANT_NOT_FOUND` (unknown, expired, revoked or outside the scope),
   * `FORBIDDEN` (no `decide`).
   */
  async release(grantId: string, caller: GrantCaller = {}): Promise<GrantRelease> {
    requireAction(caller.scope, 'decide');
    if (typeof grantId !== 'string' || grantId === '' || !this.agentOf) throw unknownGrant(grantId);
    const state = await readGrants(await this.client(), this.taskQueue);
    const grant = liveGrants(state, Date.now()).find((g) => g.grantId === grantId);
    if (!grant || !maySeeRun(caller.scope, grant)) throw unknownGrant(grantId);
    const agent = this.agentOf(grant.agentId, caller.scope);
    const deps = { client: this.client, scope: caller.scope, agent };
    return releaseCovered(deps, grant, undefined, await this.covering(grant));
  }

  /**
   * What a release matches calls against: the grant itself, or for a grant of every tool of an
   * MCP server, one grant per tool of the agent from that server, bound to its stored pin, as the
   * worker's gate expands it (`grantsPerTool`); the agent's published description says which
   * tools come from which server.
   */
  private async covering(grant: Grant): Promise<Grant[]> {
    const server = serverOfGrant(grant);
    if (server === undefined) return [grant];
    const [description, pins] = await Promise.all([
      this.directory.description(grant.agentId),
      new McpPinRegistry(this.client, this.taskQueue, this.pollers).read(server),
    ]);
    const sourceOf = (toolName: string) => description.mcpTools?.[toolName];
    return grantsPerTool(grant, description.tools, sourceOf, pins);
  }

  /**
   * Grants and revocations are updates of the registry, which runs on the agents' task queue:
   * with no worker polling it, nothing would answer and the call would wait for one forever.
   */
  private async requireWorker(): Promise<void> {
    if ((await this.pollers()) > 0) return;
    throw new TollgateError(
      'WORKER_UNAVAILABLE',
      `No worker polls task queue '${this.taskQueue}', whose grants registry would apply the change; nothing was sent. Start a worker for that queue, then try again.`,
    );
  }

  /**
   * Gives a grant: calls of `toolName` on the thread or resource run without waiting until it
   * expires, when `identity` could approve them itself (the tool's approvers, quorum and
   * requester rules are checked at each use).
   *
   * @throws TollgateError `INVALID_GRANT` (bad duration, a tool the agent does not have),
   * `FORBIDDEN` (outside the caller's scope), `AGENT_NOT_FOUND`.
   */
  async create(input: GrantInput, caller: GrantCaller = {}): Promise<Grant> {
    return this.add(await this.prepare(input, caller));
  }

  /** Every check of `create`, without giving the grant: what `add` then gives. */
  async prepare(input: GrantInput, caller: GrantCaller = {}): Promise<GrantRequest> {
    const request = grantRequestOf(input, caller.identity);
    requireAction(caller.scope, 'decide');
    requireAgent(caller.scope, request.agentId);
    requireResource(caller.scope, request.resourceId);
    const server = input.mcpServer !== undefined ? serverOfGrant(request) : undefined;
    if (server !== undefined) return this.boundToPins(request, server);
    const { tools } = await this.directory.description(request.agentId);
    if (!tools.includes(request.toolName)) {
      throw new TollgateError(
        'INVALID_GRANT',
        `Agent "${request.agentId}" has no tool "${request.toolName}"; its tools: ${tools.join(', ') || 'none'}.`,
      );
    }
    return request;
  }

  /**
   * A grant for every tool of an MCP server, bound to the server's stored pins as they are now.
   * @throws TollgateError `INVALID_GRANT` when the server has no stored pins on this task queue.
   */
  private async boundToPins(request: GrantRequest, server: string): Promise<GrantRequest> {
    const pins = await new McpPinRegistry(this.client, this.taskQueue, this.pollers).read(server);
    if (!pins || Object.keys(pins.pins).length === 0) {
      throw new TollgateError(
        'INVALID_GRANT',
        `MCP server "${server}" has no stored pins on task queue "${this.taskQueue}": start a worker with its tools (mcpTools({ name: '${server}' })) before granting them.`,
      );
    }
    return { ...request, definition: pinsDigest(pins.pins) };
  }

  /** Gives a grant `prepare` checked; starts the registry on first use. */
  async add(request: GrantRequest): Promise<Grant> {
    const client = await this.client();
    await this.requireWorker();
    const id = grantsRegistryId(this.taskQueue);
    await startRegistry(
      client,
      grantsRef(this.taskQueue),
      this.taskQueue,
      `Grants of task queue ${this.taskQueue}`,
    );
    try {
      return await sendUpdate(client, id, grantCreateUpdate, [request]);
    } catch (error) {
      throw await toTollgateError(error, id);
    }
  }

  /** Live grants the caller may see (its agents and resources), oldest first. */
  async list(filter: GrantFilter = {}, caller: GrantCaller = {}): Promise<Grant[]> {
    requireAction(caller.scope, 'read');
    const state = await readGrants(await this.client(), this.taskQueue);
    return liveGrants(state, Date.now()).filter(
      (grant) =>
        maySeeRun(caller.scope, grant) &&
        (filter.agentId === undefined || grant.agentId === filter.agentId) &&
        (filter.resourceId === undefined || grant.resourceId === filter.resourceId) &&
        (filter.threadId === undefined || grant.threadId === filter.threadId) &&
        (filter.toolName === undefined || grant.toolName === filter.toolName),
    );
  }

  /**
   * Revokes a grant: calls made from now on wait again. A grant outside the caller's scope is
   * reported as unknown.
   *
   * @throws TollgateError `GRANT_NOT_FOUND`, `GRANT_ALREADY_REVOKED`, `FORBIDDEN`.
   */
  async revoke(grantId: string, caller: GrantCaller = {}): Promise<Grant> {
    requireAction(caller.scope, 'decide');
    if (typeof grantId !== 'string' || grantId === '') {
      throw new TollgateError('INVALID_GRANT', 'revoke() needs a grant id.');
    }
    const client = await this.client();
    const state = await readGrants(client, this.taskQueue);
    const known = [...state.grants, ...state.ended].find((grant) => grant.grantId === grantId);
    if (!known || !maySeeRun(caller.scope, known)) throw unknownGrant(grantId);
    await this.requireWorker();
    const id = grantsRegistryId(this.taskQueue);
    const revokedBy = caller.identity;
    try {
      return await sendUpdate(client, id, grantRevokeUpdate, [
        { grantId, ...(revokedBy ? { revokedBy } : {}) },
      ]);
    } catch (error) {
      throw await toTollgateError(error, id);
    }
  }
}

/** The registry's state from its memo; empty when there is none yet. */
export function readGrants(client: Client, taskQueue: string): Promise<GrantsState> {
  return readRegistryMemo(client, grantsRef(taskQueue));
}

function grantsRef(taskQueue: string): RegistryRef<GrantsState> {
  return {
    workflowType: GRANTS_WORKFLOW,
    workflowId: grantsRegistryId(taskQueue),
    memoKey: GRANTS_MEMO_KEY,
    empty: EMPTY_GRANTS,
  };
}
