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

  /** Resolves on the next notification, leaving it pending for `wait()`. */
  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
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
