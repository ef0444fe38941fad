/** Responses streamed from async iterables: the chat's UI message stream, AG-UI's events. */

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
