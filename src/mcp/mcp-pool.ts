import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { TollgateError } from '../common/errors.js';
import type { McpConnectionOptions } from './mcp-options.js';

/** Answers the server's `elicitation/create` requests for the call that holds the client. */
export type ElicitationHandler = (params: ElicitRequest['params']) => Promise<ElicitResult>;

/** A client lent to one call at a time, so each elicitation belongs to the call that holds it. */
export interface McpLease {
  readonly client: Client;
  /** Routes the server's elicitations to `handler`; without one they are declined. */
  onElicitation(handler: ElicitationHandler | undefined): void;
  /** Gives the client back to the pool; `broken` closes it instead. */
  release(broken?: boolean): void;
}

interface Pooled {
  client: Client;
  closed: boolean;
  handler?: ElicitationHandler;
  idleTimer?: ReturnType<typeof setTimeout>;
}

const pools = new Set<McpClientPool>();

/**
 * Connections to one MCP server, reused between calls on the worker. A connection serves one
 * call at a time; idle ones close after `idleTimeoutMs`.
 */
export class McpClientPool {
  private idle: Pooled[] = [];
  private readonly open = new Set<Pooled>();
  private toolListChanged?: (client: Client) => void;

  constructor(
    private readonly connection: McpConnectionOptions,
    private readonly label: string,
    private readonly idleTimeoutMs: number,
  ) {
    pools.add(this);
  }

  /** @throws TollgateError `MCP_CONNECTION_FAILED` when the server cannot be reached. */
  async lease(): Promise<McpLease> {
    let pooled: Pooled | undefined;
    while ((pooled = this.idle.pop()) && pooled.closed);
    if (pooled) clearTimeout(pooled.idleTimer);
    else pooled = await this.connect();
    const held = pooled;
    let released = false;
    return {
      client: held.client,
      onElicitation: (handler) => {
        held.handler = handler;
      },
      release: (broken = false) => {
        if (released) return;
        released = true;
        held.handler = undefined;
        if (broken || held.closed) void this.close(held);
        else this.park(held);
      },
    };
  }

  /**
   * Called with the connection that received the server's `notifications/tools/list_changed`,
   * on any open connection, leased or idle.
   */
  onToolListChanged(listener: (client: Client) => void): void {
    this.toolListChanged = listener;
  }

  /** Closes every connection of this pool. */
  async closeAll(): Promise<void> {
    this.idle = [];
    await Promise.all([...this.open].map((pooled) => this.close(pooled)));
  }

  private async connect(): Promise<Pooled> {
    const client = new Client(
      { name: 'tollgate', version: '0.1.0' },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    const pooled: Pooled = { client, closed: false };
    client.setRequestHandler(ElicitRequestSchema, async (request) =>
      pooled.handler ? pooled.handler(request.params) : { action: 'decline' },
    );
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.toolListChanged?.(client);
    });
    client.onclose = () => {
      pooled.closed = true;
      this.open.delete(pooled);
    };
    try {
      await client.connect(this.transport());
    } catch (error) {
      await client.close().catch(() => undefined);
      if (error instanceof UnauthorizedError) throw authRequired(this.label, error);
      throw new TollgateError(
        'MCP_CONNECTION_FAILED',
        `MCP server "${this.label}" could not be reached (${error instanceof Error ? error.message : String(error)}); check its command or URL and that it runs.`,
        { cause: error },
      );
    }
    this.open.add(pooled);
    return pooled;
  }

  private transport(): Transport {
    const { command, url, transport } = this.connection;
    if (transport) return transport();
    if (command !== undefined) {
      return new StdioClientTransport({
        command,
        ...(this.connection.args ? { args: this.connection.args } : {}),
        ...(this.connection.env ? { env: this.connection.env } : {}),
        ...(this.connection.cwd ? { cwd: this.connection.cwd } : {}),
        stderr: this.connection.stderr ?? 'inherit',
      });
    }
    const { headers, authProvider } = this.connection;
    return new StreamableHTTPClientTransport(new URL(String(url)), {
      ...(headers ? { requestInit: { headers } } : {}),
      ...(authProvider ? { authProvider } : {}),
    });
  }

  private park(pooled: Pooled): void {
    this.idle.push(pooled);
    pooled.idleTimer = setTimeout(() => {
      this.idle = this.idle.filter((other) => other !== pooled);
      void this.close(pooled);
    }, this.idleTimeoutMs);
    pooled.idleTimer.unref();
  }

  private async close(pooled: Pooled): Promise<void> {
    clearTimeout(pooled.idleTimer);
    pooled.closed = true;
    this.open.delete(pooled);
    await pooled.client.close().catch(() => undefined);
  }
}

/**
 * Closes every pooled MCP connection of this process (stdio servers exit with theirs). Idle ones
 * close by themselves; call this when a worker stops for good, or between tests.
 */
export async function closeMcpConnections(): Promise<void> {
  await Promise.all([...pools].map((pool) => pool.closeAll()));
}

/**
 * The server answered 401 and the worker's OAuth provider could not authorize without a person:
 * it was sent to its authorization page (`redirectToAuthorization`).
 */
export function authRequired(server: string, cause: unknown): TollgateError {
  return new TollgateError(
    'MCP_AUTH_REQUIRED',
    `MCP server "${server}" needs an OAuth authorization the worker's authProvider has no valid tokens for; complete its authorization (the provider's redirectToAuthorization was called) so it holds tokens, then call again.`,
    { cause },
  );
}
