/** Responses streamed from async iterables: the chat's UI message stream, AG-UI's events. */
import type { ErrorBody } from '../common/http-api.js';
import { errorAnswer, type ErrorLogger } from './errors.js';

/** A pull-driven stream over `chunks`; cancelling it (the browser left) stops reading the run. */
export function readableOf<T>(chunks: AsyncIterable<T>): ReadableStream<T> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<T>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/**
 * `items`, and if reading them fails after the response began (when only the stream can still
 * say so), one last item `failure` makes of the error.
 */
export async function* endingWith<T>(
  items: AsyncIterable<T>,
  failure: (error: unknown) => T,
): AsyncIterable<T> {
  try {
    yield* items;
  } catch (error) {
    yield failure(error);
  }
}

/**
 * `items`, ending with the item `itemOf` makes of the error a caller is told (`errorAnswer`: a
 * Tollgate code and message, internals logged as `where` and shown as `INTERNAL`) when reading
 * them fails after the response began: the chat's `error` chunk, AG-UI's `RUN_ERROR`.
 */
export function endingWithError<T>(
  items: AsyncIterable<T>,
  log: ErrorLogger,
  where: string,
  itemOf: (error: ErrorBody['error']) => T,
): AsyncIterable<T> {
  return endingWith(items, (error) => itemOf(errorAnswer(error, log, where).body.error));
}

/**
 * `items`, with a `beat()` yielded whenever `everyMs` pass without one, so proxies that close quiet
 * streams keep the response open through a long model step. A read still waiting when the
 * consumer stops is left to settle; the source is closed.
 */
export async function* withKeepAlive<T>(
  items: AsyncIterable<T>,
  everyMs: number,
  beat: () => T,
): AsyncIterable<T> {
  const iterator = items[Symbol.asyncIterator]();
  let next = iterator.next();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const quiet = new Promise<'quiet'>(
        (resolve) => (timer = setTimeout(resolve, everyMs, 'quiet')),
      );
      const first = await Promise.race([next, quiet]).finally(() => clearTimeout(timer));
      if (first === 'quiet') {
        yield beat();
        continue;
      }
      if (first.done === true) return;
      yield first.value;
      next = iterator.next();
    }
  } finally {
    // Not awaited: a generator busy with the pending read would only return once it settles.
    void iterator.return?.()?.catch(() => undefined);
  }
}
