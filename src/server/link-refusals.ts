/**
 * The bounds of `/links` refusals (docs/limits.md). Anyone may send a link, so what a refusal
 * costs is bounded here: refusals are counted per client address and a client over its budget is
 * answered 429 until its minute ends; the operator's record of them (counts and the latest few)
 * stays in this process; a run's audit is only sent refusals of links this server signed, each
 * link once per code.
 */
import type { Context } from 'hono';
import { TollgateError } from '../common/errors.js';

/** Options of the link routes' refusal bounds (`TollgateServerOptions.channels.refusals`). */
export interface LinkRefusalOptions {
  /**
   * Refused links (bad signature, expired, or refused by the run) one client address may send
   * per minute; past it, every link request from that address is answered 429 `RATE_LIMITED`
   * with `Retry-After` until the minute ends. Default 30.
   */
  perMinute?: number;
  /**
   * The client's address for the budget. Default: the connection's remote address. Behind a
   * reverse proxy every client shares the proxy's address: return the one the proxy forwards.
   */
  clientAddress?: (request: Request, remoteAddress: string | undefined) => string;
}

/** One refusal, as the operator's report shows it. */
export interface RecentLinkRefusal {
  /** ISO time of the refusal. */
  at: string;
  address: string;
  code: string;
  /** The run the link named (unverified for `LINK_INVALID`), at most 200 characters. */
  runId?: string;
}

/** What the server refused on `/links` since it started (`TollgateServer.linkRefusals()`). */
export interface LinkRefusalReport {
  /** Refusals by code. */
  counts: Record<string, number>;
  /** Requests answered 429 `RATE_LIMITED`. */
  rateLimited: number;
  /** The latest refusals, oldest first, at most `RECENT_REFUSALS`. */
  recent: RecentLinkRefusal[];
}

export const DEFAULT_REFUSALS_PER_MINUTE = 30;
/** Refusals the report keeps. */
export const RECENT_REFUSALS = 100;
/** Client addresses with a budget this minute, and links already noted in a run, kept at most. */
const MAX_TRACKED = 10_000;
const WINDOW_MS = 60_000;

export class LinkRefusals {
  private readonly perMinute: number;
  private readonly windows = new Map<string, { start: number; refused: number }>();
  private readonly noted = new Set<string>();
  private readonly report: LinkRefusalReport = { counts: {}, rateLimited: 0, recent: [] };

  constructor(private readonly options: LinkRefusalOptions = {}) {
    const perMinute = options.perMinute ?? DEFAULT_REFUSALS_PER_MINUTE;
    if (!Number.isInteger(perMinute) || perMinute < 1) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        `channels.refusals.perMinute must be a whole number ≥ 1, not ${String(perMinute)}.`,
      );
    }
    this.perMinute = perMinute;
  }

  addressOf(c: Context): string {
    const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
      ?.incoming;
    const remote = incoming?.socket?.remoteAddress;
    return this.options.clientAddress?.(c.req.raw, remote) ?? remote ?? 'unknown';
  }

  /** Seconds until `address` may send links again; undefined while it is within its budget. */
  retryAfter(address: string, now = Date.now()): number | undefined {
    const window = this.windows.get(address);
    if (!window || now - window.start >= WINDOW_MS || window.refused < this.perMinute) {
      return undefined;
    }
    this.report.rateLimited++;
    return Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
  }

  record(address: string, code: string, runId?: string, now = Date.now()): void {
    let window = this.windows.get(address);
    if (!window || now - window.start >= WINDOW_MS) {
      if (this.windows.size >= MAX_TRACKED) this.forgetOldWindows(now);
      window = { start: now, refused: 0 };
      this.windows.set(address, window);
    }
    window.refused++;
    const { counts, recent } = this.report;
    counts[code] = (counts[code] ?? 0) + 1;
    const at = new Date(now).toISOString();
    recent.push({ at, address, code, ...(runId ? { runId: runId.slice(0, 200) } : {}) });
    if (recent.length > RECENT_REFUSALS) recent.shift();
  }

  /** Whether this refusal of a signed link is the first of its kind: only that one is noted. */
  firstOf(key: string): boolean {
    if (this.noted.has(key)) return false;
    if (this.noted.size >= MAX_TRACKED) this.noted.delete(this.noted.values().next().value!);
    this.noted.add(key);
    return true;
  }

  snapshot(): LinkRefusalReport {
    const { counts, rateLimited, recent } = this.report;
    return { counts: { ...counts }, rateLimited, recent: recent.map((r) => ({ ...r })) };
  }

  private forgetOldWindows(now: number): void {
    for (const [address, window] of this.windows) {
      if (now - window.start >= WINDOW_MS) this.windows.delete(address);
    }
    // Still full: addresses enough to fill it within one minute lose their budget's past.
    if (this.windows.size >= MAX_TRACKED) this.windows.clear();
  }
}
