import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import type { DecidedBy } from '../common/decision-types.js';
import { TollgateError } from '../common/errors.js';
import {
  emptyPins,
  MAX_STORED_PINS,
  withPins,
  type McpPinsState,
  type StoredPin,
} from '../common/mcp-pins.js';
import { mcpPinUpdate, mcpRepinUpdate } from '../common/messages.js';
import { requireAction, type Scope } from '../common/scope.js';
import { MCP_PINS_MEMO_KEY, MCP_PINS_WORKFLOW, mcpPinsId } from '../common/wire.js';
import { toTollgateError } from './errors.js';
import { sendUpdate } from './send-update.js';

/** Who re-pins: the limits of their token and the identity recorded with the re-pin. */
export interface RepinCaller {
  /** Limits of the caller; re-pinning loosens a check, so it needs the `admin` action. */
  scope?: Scope;
  /** Recorded as `repinnedBy`. */
  identity?: DecidedBy;
}

/**
 * The stored pins of the MCP servers of one task queue (docs/mcp.md "Pins across deploys"), kept in
 * Temporal only: one open `mcpPinsRegistry` workflow per server, its state in its memo, so a pin
 * is read with no worker running and outlives every release.
 */
export class McpPinRegistry {
  constructor(
    private readonly client: () => Promise<Client>,
    readonly taskQueue: string,
    /** Workers that polled the task queue lately (`Tollgate.workerPollers`). */
    private readonly pollers: () => Promise<number>,
  ) {}

  /** The server's stored pins; undefined when none was ever stored. */
  async read(server: string): Promise<McpPinsState | undefined> {
    const id = mcpPinsId(this.taskQueue, server);
    try {
      const description = await (await this.client()).workflow.getHandle(id).describe();
      if (description.type !== MCP_PINS_WORKFLOW || description.status.name !== 'RUNNING') {
        return undefined;
      }
      return description.memo?.[MCP_PINS_MEMO_KEY] as McpPinsState | undefined;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw await toTollgateError(error, id);
    }
  }

  /**
   * Stores `offered` for the server's tools that have no stored pin yet (the first pin wins) and
   * answers the record as it then is. A new record is written at once; an open one is updated by
   * a worker of the queue, so a worker calls this once it polls.
   */
  async pin(server: string, offered: Record<string, StoredPin>): Promise<McpPinsState> {
    const known = await this.read(server);
    if (known && !adds(known, offered)) return known;
    const client = await this.client();
    const id = mcpPinsId(this.taskQueue, server);
    if (!known) {
      const initial = withPins(emptyPins(server), offered);
      try {
        await client.workflow.start(MCP_PINS_WORKFLOW, {
          workflowId: id,
          taskQueue: this.taskQueue,
          args: [initial],
          memo: { [MCP_PINS_MEMO_KEY]: initial },
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          staticSummary: `MCP pins of server ${server}`,
        });
        return initial;
      } catch (error) {
        // Another worker stored first: its pins win, ours are offered to its record.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError))
          throw await toTollgateError(error, id);
      }
    }
    try {
      return await sendUpdate(client, id, mcpPinUpdate, [offered]);
    } catch (error) {
      throw await toTollgateError(error, id);
    }
  }

  /**
   * Accepts the server's changed definitions on purpose: drops the stored pins of `tools` (every
   * stored one when empty), recorded with `repinnedBy`; the next worker to check a tool pins the
   * definition it was started with. Needs a worker polling the queue, which applies the change.
   *
   * @throws TollgateError `MCP_PIN_NOT_FOUND` (no record, or a tool without a stored pin),
   * `FORBIDDEN` (a caller without `admin`), `WORKER_UNAVAILABLE`.
   */
  async repin(
    server: string,
    tools: string[] = [],
    caller: RepinCaller = {},
  ): Promise<McpPinsState> {
    requireAction(caller.scope, 'admin');
    if (!(await this.read(server))) {
      throw new TollgateError(
        'MCP_PIN_NOT_FOUND',
        `No pins are stored for MCP server "${server}" on task queue '${this.taskQueue}'; check the server's name (mcpTools({ name })).`,
      );
    }
    if ((await this.pollers()) === 0) {
      throw new TollgateError(
        'WORKER_UNAVAILABLE',
        `No worker polls task queue '${this.taskQueue}', whose pins record of MCP server "${server}" would apply the re-pin; nothing was sent. Start a worker for that queue, then try again.`,
      );
    }
    const id = mcpPinsId(this.taskQueue, server);
    const request = { tools, ...(caller.identity ? { repinnedBy: caller.identity } : {}) };
    try {
      return await sendUpdate(await this.client(), id, mcpRepinUpdate, [request]);
    } catch (error) {
      throw await toTollgateError(error, id);
    }
  }
}

/** Whether `offered` holds a tool the record would still take. */
function adds(state: McpPinsState, offered: Record<string, StoredPin>): boolean {
  return (
    Object.keys(state.pins).length < MAX_STORED_PINS &&
    Object.keys(offered).some((name) => state.pins[name] === undefined)
  );
}
