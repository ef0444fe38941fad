/**
 * The tail's wake-up (run-tail.ts): the history watch and live text notify it; the tail waits on it
 * between reads of the log, and races reads against it so live text goes out during a read.
 */
/** A level-triggered wake-up: notifications while nobody waits are not lost. */
export class ChangeSignal {
  private pending = false;
  private logMayHaveGrown = false;
  private wake: (() => void) | undefined;
  private waiters: Array<() => void> = [];

  /** `log`: false when only live text came, which needs no read of the log. */
  notify(log = true): void {
    this.pending = true;
    this.logMayHaveGrown ||= log;
    this.wake?.();
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  /**
   * Resolves on the next notification, leaving it pending for `wait()`. `cancel()` forgets the
   * wait when it is no longer wanted, so nothing stays behind while notifications stop.
   */
  next(): { promise: Promise<void>; cancel(): void } {
    let waiter: (() => void) | undefined;
    const promise = new Promise<void>((resolve) => {
      waiter = resolve;
      this.waiters.push(resolve);
    });
    const cancel = () => {
      this.waiters = this.waiters.filter((other) => other !== waiter);
    };
    return { promise, cancel };
  }

  /** Waits registered by `next()` and neither notified nor cancelled. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Resolves on a notification or after `timeoutMs`; true when the log should be read. */
  async wait(timeoutMs: number): Promise<boolean> {
    let timedOut = false;
    if (!this.pending) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timedOut = true;
          resolve();
        }, timeoutMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const readLog = timedOut || this.logMayHaveGrown;
    this.wake = undefined;
    this.pending = false;
    this.logMayHaveGrown = false;
    return readLog;
  }
}
