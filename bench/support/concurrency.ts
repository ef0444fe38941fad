/** Bounded concurrency and bounded waiting. */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Calls `task` on every item, at most `concurrency` at a time, in order of the items; resolves
 * with the results in the same order. `onDone` sees the count of finished tasks as it grows.
 */
export async function mapPool<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<R>,
  onDone?: (done: number) => void | Promise<void>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
      done++;
      await onDone?.(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return results;
}

/** Rejects with `what did not happen within ms` if `promise` takes longer. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Calls `attempt` until it resolves, `retryable` says an error is final, or `deadline`
 * (a `Date.now()` value) passes; waits `pauseMs` between attempts.
 */
export async function retrying<T>(
  attempt: () => Promise<T>,
  options: { deadline: number; pauseMs?: number; retryable?: (error: unknown) => boolean },
): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() >= options.deadline || (options.retryable && !options.retryable(error)))
        throw error;
      await sleep(options.pauseMs ?? 500);
    }
  }
}

/** A pseudo-random generator (mulberry32), so a run of a script can be repeated with `--seed`. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
