import { parseDuration } from '../common/approval-rules.js';
import { TollgateError } from '../common/errors.js';
import { liveBus } from './live-bus.js';
import type { LiveChunk, LiveDeltaTransport, LiveListener, LiveRole } from './live-transport.js';

/** Redis for live deltas (see `LiveDeltaOptions.redis`). */
export interface RedisLiveOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` for TLS. */
  url: string;
  /**
   * Prefix of the per-run channels (`PUBLISH <prefix><runId>`). Default
   * `tollgate:live:<namespace>:`, so runs of two namespaces sharing a Redis never mix.
   */
  channelPrefix?: string;
  /** How long one connection attempt may take: ms or `'2 seconds'`. Default 2 s. */
  connectTimeout?: number | string;
}

/**
 * How live text deltas travel from the worker that runs a model step to the processes that
 * stream the run (docs/live-tokens.md). Configure the same on workers and API servers. The
 * durable chunk log stays the truth: a stream without deltas shows each step's text when the log
 * records it, never less and never twice.
 */
export interface LiveDeltaOptions {
  /**
   * Redis pub/sub (Redis 5 or later). When `liveDeltas` is omitted altogether, env
   * `TOLLGATE_LIVE_REDIS_URL` (if set) gives the URL; `liveDeltas: {}` turns that off.
   */
  redis?: RedisLiveOptions;
  /**
   * Any other pub/sub behind `LiveDeltaTransport` (e.g. NATS). Tollgate does not close it.
   * Exclusive with `redis`.
   */
  transport?: LiveDeltaTransport;
}

/** The environment variable that gives `tollgate worker` and `tollgate serve` a Redis. */
export const LIVE_REDIS_URL_ENV = 'TOLLGATE_LIVE_REDIS_URL';

const DEFAULT_CONNECT_TIMEOUT_MS = 2000;

/**
 * The transport `new Tollgate({ liveDeltas })` asked for, checked: a Redis one (its client
 * loaded only then), the caller's own, or the in-process bus (live text in this process only).
 * `owned` tells whether the runtime closes it on shutdown.
 */
export function openLiveTransport(
  options: LiveDeltaOptions | undefined,
  namespace: string,
  env: NodeJS.ProcessEnv = process.env,
): { transport: LiveDeltaTransport; owned: boolean } {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw invalid('liveDeltas must be an object such as { redis: { url } }.');
  }
  if (options?.redis && options.transport) {
    throw invalid('liveDeltas takes redis or transport, not both: keep one.');
  }
  if (options?.transport) return { transport: options.transport, owned: false };
  const envUrl = options === undefined ? env[LIVE_REDIS_URL_ENV] : undefined;
  const redis = options?.redis ?? (envUrl ? { url: envUrl } : undefined);
  if (!redis) return { transport: liveBus, owned: false };
  const source = options?.redis ? 'liveDeltas.redis.url' : LIVE_REDIS_URL_ENV;
  if (typeof redis.url !== 'string' || !/^rediss?:\/\/[^/]/.test(redis.url)) {
    throw invalid(
      `${source} '${String(redis.url)}' is not a Redis URL: use redis://host:port or rediss://host:port.`,
    );
  }
  const settings = {
    url: redis.url,
    channelPrefix: redis.channelPrefix ?? `tollgate:live:${namespace}:`,
    connectTimeoutMs:
      redis.connectTimeout === undefined
        ? DEFAULT_CONNECT_TIMEOUT_MS
        : parseDuration(redis.connectTimeout, 'liveDeltas.redis.connectTimeout'),
  };
  const loading = import('./redis-transport.js').then((m) => new m.RedisLiveTransport(settings));
  return { transport: new DeferredTransport(loading), owned: true };
}

function invalid(message: string): TollgateError {
  return new TollgateError('INVALID_OPTIONS', message);
}

/** A transport whose module is still loading: calls wait for it, subscriptions register then. */
class DeferredTransport implements LiveDeltaTransport {
  private loaded: LiveDeltaTransport | undefined;

  constructor(private readonly loading: Promise<LiveDeltaTransport>) {
    loading.then(
      (transport) => (this.loaded = transport),
      (error: unknown) => console.warn('[tollgate] live deltas could not start:', error),
    );
  }

  async publish(runId: string, live: LiveChunk): Promise<void> {
    const transport = this.loaded ?? (await this.loading.catch(() => undefined));
    await transport?.publish(runId, live);
  }

  subscribe(runId: string, listener: LiveListener): () => void {
    if (this.loaded) return this.loaded.subscribe(runId, listener);
    let unsubscribe: (() => void) | undefined;
    let cancelled = false;
    this.loading.then(
      (transport) => {
        if (!cancelled) unsubscribe = transport.subscribe(runId, listener);
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
      unsubscribe?.();
    };
  }

  async open(role: LiveRole): Promise<void> {
    await (await this.loading.catch(() => undefined))?.open?.(role);
  }

  async close(): Promise<void> {
    await (await this.loading.catch(() => undefined))?.close();
  }
}
