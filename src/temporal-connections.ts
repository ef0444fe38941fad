import { Client, type Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { TollgateError } from './common/errors.js';
import { messageOf } from './common/message-of.js';
import { connectClosable, type ClosableConnection } from './temporal-client/connection.js';
import { isTemporalUnreachable } from './temporal-client/errors.js';
import { ensureSearchAttributes } from './temporal-client/search-attributes.js';
import type { Tracing } from './telemetry/tracing.js';

/**
 * A runtime's two connections to Temporal: the client's (starts and steers runs) and the
 * worker's native one. Each opens on first use, and opens again on the next use after it failed.
 */
export class TemporalConnections {
  private clientPromise: Promise<Client> | undefined;
  private clientConnection: Promise<ClosableConnection> | undefined;
  private nativeConnection: Promise<NativeConnection> | undefined;

  constructor(
    private readonly address: string,
    private readonly namespace: string,
    private readonly tracing: Promise<Tracing> | undefined,
  ) {}

  /** The Temporal client, connected on first use. */
  client(): Promise<Client> {
    this.clientConnection ??= connectClosable(this.address).catch((error: unknown) => {
      if (!isTemporalUnreachable(error)) throw error;
      // No address in the message: it may travel to HTTP callers.
      throw new TollgateError(
        'TEMPORAL_UNAVAILABLE',
        'Temporal could not be reached. Nothing was changed; try again when the server is back.',
        { cause: error },
      );
    });
    this.clientPromise ??= Promise.all([this.clientConnection, this.tracing]).then(
      ([{ connection }, tracing]) =>
        new Client({
          connection,
          namespace: this.namespace,
          ...(tracing ? { interceptors: tracing.clientInterceptors } : {}),
        }),
      (error: unknown) => {
        // A server that was down must not stay down for this runtime: the next call tries again.
        this.clientPromise = undefined;
        this.clientConnection = undefined;
        throw error;
      },
    );
    return this.clientPromise;
  }

  /** The workers' native connection, connected on first use. */
  native(): Promise<NativeConnection> {
    this.nativeConnection ??= NativeConnection.connect({ address: this.address }).catch(
      (error: unknown) => {
        // Connect again next time: the server may be back.
        this.nativeConnection = undefined;
        throw error;
      },
    );
    return this.nativeConnection;
  }

  /**
   * Client, search attributes and worker connection, retried while Temporal is unreachable for
   * up to `connectTimeoutMs`; then `TEMPORAL_UNAVAILABLE`. `assertOpen` throws once the runtime
   * is shut down, which ends the waiting.
   */
  async reach(
    connectTimeoutMs: number,
    isClosed: () => boolean,
    assertOpen: () => void,
  ): Promise<{ client: Client; native: NativeConnection }> {
    const deadline = Date.now() + connectTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      try {
        assertOpen();
        const client = await this.client();
        await ensureSearchAttributes(client.connection as Connection, this.namespace);
        return { client, native: await this.native() };
      } catch (error) {
        const unreachable = isTemporalUnreachable(error);
        const wait = Math.min(1000 * attempt, 5000, deadline - Date.now());
        if (!unreachable || wait <= 0 || isClosed()) {
          throw unreachable ? this.unreachableError(error) : error;
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
        assertOpen();
      }
    }
  }

  /** The native connection if one was opened, for closing it. */
  openedNative(): Promise<NativeConnection | undefined> {
    return this.nativeConnection?.catch(() => undefined) ?? Promise.resolve(undefined);
  }

  /** Closes the client's connection, if one was opened. */
  async closeClient(): Promise<void> {
    await (await this.clientConnection?.catch(() => undefined))?.close();
  }

  private unreachableError(cause: unknown): TollgateError {
    const reason = cause instanceof TollgateError && cause.cause ? cause.cause : cause;
    return new TollgateError(
      'TEMPORAL_UNAVAILABLE',
      `Temporal at ${this.address} could not be reached (${messageOf(reason)}); start it, check the address, or set worker.connectTimeout to wait for it.`,
      { cause },
    );
  }
}
