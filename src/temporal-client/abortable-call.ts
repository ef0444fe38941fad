import type { Connection } from '@temporalio/client';

/**
 * Runs one Temporal call that `signal` can cut short, without leaving anything on `signal`.
 * The connection adds an `abort` listener to the signal of every call it makes and never removes
 * it; a long-lived signal that served each poll of a tail gathered one listener (and the call it
 * holds) per poll. Each call gets its own signal instead, tied to `signal` only while it runs.
 */
export async function abortableCall<T>(
  connection: Pick<Connection, 'withAbortSignal'>,
  signal: AbortSignal,
  call: () => Promise<T>,
): Promise<T> {
  const own = new AbortController();
  const abort = () => own.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  try {
    return await connection.withAbortSignal(own.signal, call);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}
