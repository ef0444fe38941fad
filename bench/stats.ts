/** Small statistics and formatting helpers for the benchmark's printed figures. */

/** The value at quantile `q` (0..1) of `values`, nearest-rank. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) throw new Error('quantile() of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** Median; the mean of the two middle values for an even count. */
export function median(values: number[]): number {
  if (values.length === 0) throw new Error('median() of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function ms(value: number): string {
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
}

export function bytes(value: number): string {
  return value >= 10_240 ? `${(value / 1024).toFixed(1)} KiB (${value} B)` : `${value} B`;
}

/** Times `body` with the monotonic clock, in milliseconds. */
export async function timed<T>(body: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await body();
  return { value, ms: performance.now() - start };
}

/** A sanity check: the benchmark measures nothing meaningful if a run did not do what it should. */
export function expectThat(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`Benchmark sanity check failed: ${message}`);
}

/** Progress goes to stderr so stdout holds only the figures. */
export function progress(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}
