import { describe, expect, it } from '@jest/globals';
import { ChangeSignal } from '../../src/temporal-client/change-signal.js';

describe("the tail's change signal (pure, no server)", () => {
  it('keeps nothing of the waits that reads won, however many reads a parked run gets', async () => {
    const changes = new ChangeSignal();
    // A parked run: every read of the log (one per 2 s for days) finishes before any change.
    for (let read = 0; read < 10_000; read++) {
      const change = changes.next();
      await Promise.race([Promise.resolve(true), change.promise]);
      change.cancel();
    }
    expect(changes.waiting).toBe(0);
  });

  it('wakes a wait that is still wanted, and keeps a notification nobody waited for', async () => {
    const changes = new ChangeSignal();
    const change = changes.next();
    expect(changes.waiting).toBe(1);
    changes.notify(false);
    await change.promise;
    expect(changes.waiting).toBe(0);
    // The notification stays pending for wait(); only live text came, so no read is due.
    expect(await changes.wait(10_000)).toBe(false);
    changes.notify();
    expect(await changes.wait(10_000)).toBe(true);
    expect(await changes.wait(5)).toBe(true);
  });
});
