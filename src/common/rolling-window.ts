/**
 * Rolling windows of shared budgets (docs/budgets.md "Rolling windows"): a counter keeps the usage
 * of its steps in buckets of a 48th of the window, by the time each step was committed, and counts
 * the buckets that still overlap the window. A step leaves the window between `window` and
 * `window × 49/48` after its commit: a read never counts less than the window holds. Pure and
 * dependency-free: the counter workflow, the runs and the activities share it.
 */
import { parseDuration } from './approval-rules.js';

/** Usage kept per bucket: token counts, as a step's `usage` (restated to avoid an import cycle). */
export interface BucketUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** Bucket start (ms since the epoch, as a decimal string) → what the steps committed then used. */
export type Buckets = Record<string, BucketUsage>;

/** How many buckets a window has: the bound on a counter's state and on how late a step leaves. */
export const BUCKETS_PER_WINDOW = 48;

/** The shortest and longest rolling window a shared budget may declare. */
export const MIN_WINDOW_MS = 1_000;
export const MAX_WINDOW_MS = 31 * 86_400_000;

const PREFIX = 'rolling:';

/** A rolling counter's `period` in its ref and workflow id: `rolling:<window ms>`. */
export function rollingPeriod(windowMs: number): string {
  return `${PREFIX}${windowMs}`;
}

/** The window of a counter's `period` in ms, or `undefined` for a calendar day (`YYYY-MM-DD`). */
export function windowOf(period: string): number | undefined {
  return period.startsWith(PREFIX) ? Number(period.slice(PREFIX.length)) : undefined;
}

/** The length of one bucket of a window: at least a millisecond. */
export function bucketMsOf(windowMs: number): number {
  return Math.max(1, Math.floor(windowMs / BUCKETS_PER_WINDOW));
}

/** The buckets that still overlap the window ending at `nowMs`. */
export function liveBuckets(buckets: Buckets, windowMs: number, nowMs: number): Buckets {
  const bucketMs = bucketMsOf(windowMs);
  return Object.fromEntries(
    Object.entries(buckets).filter(([start]) => Number(start) + bucketMs > nowMs - windowMs),
  );
}

/** `usage` added to the bucket of `nowMs`, with the buckets that left the window dropped. */
export function withUsage(
  buckets: Buckets,
  windowMs: number,
  nowMs: number,
  usage: BucketUsage,
): Buckets {
  const bucketMs = bucketMsOf(windowMs);
  const start = String(nowMs - (nowMs % bucketMs));
  const kept = liveBuckets(buckets, windowMs, nowMs);
  return { ...kept, [start]: sumUsage([kept[start], usage]) };
}

/** What the window ending at `nowMs` holds. */
export function windowUsage(buckets: Buckets, windowMs: number, nowMs: number): BucketUsage {
  return sumUsage(Object.values(liveBuckets(buckets, windowMs, nowMs)));
}

/** When the newest bucket leaves the window: a counter with no commit since then holds nothing. */
export function windowEmptyAt(buckets: Buckets, windowMs: number): number {
  const starts = Object.keys(buckets).map(Number);
  return starts.length === 0 ? 0 : Math.max(...starts) + bucketMsOf(windowMs) + windowMs;
}

/** A declared `period: { rolling }` in ms (checked first by `windowProblem`). */
export function rollingWindowMs(rolling: string | number): number {
  return Math.round(parseDuration(rolling, 'period.rolling'));
}

/** What is wrong with `rolling` as a window, as one sentence naming `field`, or `undefined`. */
export function windowProblem(rolling: unknown, field: string): string | undefined {
  let windowMs: number;
  try {
    windowMs = Math.round(parseDuration(rolling as string | number, field));
  } catch (error) {
    return (error as Error).message;
  }
  return windowMs >= MIN_WINDOW_MS && windowMs <= MAX_WINDOW_MS
    ? undefined
    : `${field} must be between 1 second and 31 days, not ${JSON.stringify(rolling)}.`;
}

function sumUsage(parts: Array<BucketUsage | undefined>): BucketUsage {
  const sum = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  for (const part of parts) {
    if (!part) continue;
    sum.inputTokens += part.inputTokens;
    sum.outputTokens += part.outputTokens;
    sum.totalTokens += part.totalTokens;
  }
  return sum;
}
