/**
 * Pulls a source once, in the background, and lets any number of readers iterate what it
 * yielded from the start. Readers that start late miss nothing; a source error reaches all.
 */
export class ReplayBuffer<T> {
  readonly items: T[] = [];
  readonly done: Promise<void>;
  private finished = false;
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;
  private waiting: Promise<void> | undefined;

  constructor(source: AsyncIterable<T>) {
    this.done = this.pump(source);
    // Readers surface the error; the bare promise must not crash the process when nobody awaits it.
    this.done.catch(() => undefined);
  }

  private async pump(source: AsyncIterable<T>): Promise<void> {
    try {
      for await (const item of source) {
        this.items.push(item);
        this.notify();
      }
    } catch (error) {
      this.failure = { error };
      throw error;
    } finally {
      this.finished = true;
      this.notify();
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    this.waiting = undefined;
    wake?.();
  }

  private changed(): Promise<void> {
    this.waiting ??= new Promise<void>((resolve) => (this.wake = resolve));
    return this.waiting;
  }

  async *read(): AsyncGenerator<T> {
    let index = 0;
    for (;;) {
      while (index < this.items.length) yield this.items[index++]!;
      if (this.failure) throw this.failure.error;
      if (this.finished) return;
      await this.changed();
    }
  }
}
