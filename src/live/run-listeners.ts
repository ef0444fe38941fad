/** Listeners by run id, for delivery within this process. */
export class RunListeners<T> {
  private readonly listeners = new Map<string, Set<(value: T) => void>>();

  /** Calls `listener` with what is published for `runId` until the returned function is called. */
  subscribe(runId: string, listener: (value: T) => void): () => void {
    let set = this.listeners.get(runId);
    if (!set) this.listeners.set(runId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(runId);
    };
  }

  /** Calls every listener of `runId` with `value`, synchronously. */
  publish(runId: string, value: T): void {
    for (const listener of this.listeners.get(runId) ?? []) listener(value);
  }
}
