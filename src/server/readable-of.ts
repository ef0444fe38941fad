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
