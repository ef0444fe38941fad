import { createClient } from '@redis/client';
import type { LiveChunk, LiveDeltaTransport, LiveListener, LiveRole } from './live-transport.js';
import { decodeLive, encodeLive } from './live-wire.js';

type RedisClient = ReturnType<typeof createClient>;

export interface RedisLiveSettings {
  url: string;
  /** Prefix of the per-run channels; the run id follows it. */
  channelPrefix: string;
  /** How long one connection attempt may take. */
  connectTimeoutMs: number;
}

/** Longest pause between two attempts to reach a broker that went away. */
const MAX_RECONNECT_MS = 5000;

/**
 * Live chunks over Redis pub/sub: one channel per run, one publishing and one subscribing
 * connection per process, each opened on first use. Redis pub/sub is at most once, which is what
 * live text needs: the chunk log fills whatever a subscriber missed. While Redis cannot be
 * reached, chunks are dropped at once (never queued behind a model stream) and subscriptions
 * wait for the connection, which is retried in the background.
 */
export class RedisLiveTransport implements LiveDeltaTransport {
  private publisher: RedisClient | undefined;
  private subscriber: RedisClient | undefined;
  private readonly listeners = new Map<string, Set<LiveListener>>();
  private readonly relays = new Map<string, (message: string) => void>();
  private closed = false;
  private readonly down = new Set<string>();
  private readonly opened = new Map<LiveRole, Promise<void>>();

  constructor(private readonly settings: RedisLiveSettings) {}

  open(role: LiveRole): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (role === 'publish') this.publisher ??= this.connect('publisher', true);
    else this.subscriber ??= this.connect('subscriber', false);
    return this.opened.get(role) ?? Promise.resolve();
  }

  async publish(runId: string, live: LiveChunk): Promise<void> {
    const message = encodeLive(live);
    if (this.closed || message === undefined) return;
    this.publisher ??= this.connect('publisher', true);
    if (!this.publisher.isReady) return;
    try {
      await this.publisher.publish(this.channel(runId), message);
    } catch {
      // Dropped: the log carries the text.
    }
  }

  subscribe(runId: string, listener: LiveListener): () => void {
    if (this.closed) return () => undefined;
    let set = this.listeners.get(runId);
    if (!set) {
      this.listeners.set(runId, (set = new Set()));
      const relay = (message: string) => {
        const live = decodeLive(runId, message);
        if (live) for (const each of [...(this.listeners.get(runId) ?? [])]) each(live);
      };
      this.relays.set(runId, relay);
      this.subscriber ??= this.connect('subscriber', false);
      // Queued while the broker is away; the client subscribes again after a reconnect.
      this.subscriber.subscribe(this.channel(runId), relay).catch(() => undefined);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size > 0 || this.listeners.get(runId) !== set) return;
      this.listeners.delete(runId);
      const relay = this.relays.get(runId);
      this.relays.delete(runId);
      if (!this.closed && relay) {
        this.subscriber?.unsubscribe(this.channel(runId), relay).catch(() => undefined);
      }
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.relays.clear();
    for (const client of [this.publisher, this.subscriber]) {
      if (!client) continue;
      if (client.isReady) await client.close().catch(() => client.destroy());
      else if (client.isOpen) client.destroy();
    }
  }

  private channel(runId: string): string {
    return `${this.settings.channelPrefix}${runId}`;
  }

  /**
   * A connection that retries in the background and says once when it is lost and when it is
   * back. The publisher drops commands while offline; the subscriber queues its subscriptions.
   */
  private connect(role: 'publisher' | 'subscriber', dropWhileOffline: boolean): RedisClient {
    const client: RedisClient = createClient({
      url: this.settings.url,
      disableOfflineQueue: dropWhileOffline,
      socket: {
        connectTimeout: this.settings.connectTimeoutMs,
        reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, MAX_RECONNECT_MS),
      },
    });
    client.on('error', (error: unknown) => {
      if (this.closed || this.down.has(role)) return;
      this.down.add(role);
      console.warn(
        `[tollgate] live deltas: the ${role} cannot reach Redis at ${redactedUrl(this.settings.url)} (${messageOf(error)}); streams show text when the log records it until it is back.`,
      );
    });
    client.on('ready', () => {
      if (this.down.delete(role) && !this.closed) {
        console.warn(`[tollgate] live deltas: the ${role} reached Redis again.`);
      }
    });
    // Settles on the first answer: connected, or not now (the client goes on retrying).
    const opened = new Promise<void>((resolve) => {
      client.once('ready', resolve);
      client.once('error', () => resolve());
    });
    this.opened.set(role === 'publisher' ? 'publish' : 'subscribe', opened);
    client.connect().catch(() => undefined);
    return client;
  }
}

/** The URL without its password, for messages. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an invalid URL)';
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}
