import { TollgateError } from '../common/errors.js';

/** Calls sent at once; the rest wait for a free slot, so a large batch does not flood Temporal. */
const PARALLEL = 8;

/**
 * `work` on every item, at most `PARALLEL` at a time, so a large batch does not flood Temporal;
 * the answers in the items' order.
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const at = next++;
      results[at] = await work(items[at]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  return results;
}

/** A Tollgate error's code and message; anything else as `INTERNAL` with its text. */
export function explainError(error: unknown): { code: string; message: string } {
  if (error instanceof TollgateError) return { code: error.code, message: error.message };
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}
