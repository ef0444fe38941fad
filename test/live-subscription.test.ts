import { describe, expect, it } from '@jest/globals';
import { LiveSubscription } from '../src/temporal-client/live-subscription.js';
import { makeChunk } from '../src/common/chunks.js';
import { LiveBus } from '../src/live/live-bus.js';
import { Tollgate } from '../src/index.js';
import type { LiveChunk } from '../src/live/live-transport.js';
import { decodeLive, encodeLive } from '../src/live/live-wire.js';

const RUN = 'run-1';

function delta(offset: number, text: string, attempt: number, step = 3): LiveChunk {
  return { offset, step, attempt, chunk: makeChunk(RUN, 'text-delta', { text }) };
}

function withdrawal(attempt: number, text: string, step = 3): LiveChunk {
  return { offset: step, step, attempt, chunk: makeChunk(RUN, 'text-withdrawn', { text }) };
}

const textAt = (subscription: LiveSubscription, offset: number) => {
  const chunk = subscription.take(offset);
  return chunk?.type === 'text-delta' ? chunk.payload.text : undefined;
};

describe('live chunks on the wire', () => {
  it('round-trips text deltas and withdrawals, and carries nothing else', () => {
    for (const live of [delta(4, 'Hé "quoted"\n', 2), withdrawal(1, 'gone')]) {
      expect(decodeLive(RUN, encodeLive(live)!)).toEqual(live);
    }
    expect(
      encodeLive({ ...delta(0, 'x', 1), chunk: makeChunk(RUN, 'step-start', { step: 1 }) }),
    ).toBe(undefined);
  });

  it('ignores messages that are not live chunks of this version', () => {
    const good = JSON.parse(encodeLive(delta(4, 'x', 1))!) as Record<string, unknown>;
    for (const bad of [
      'not json',
      '"text"',
      JSON.stringify({ ...good, v: 2 }),
      JSON.stringify({ ...good, offset: -1 }),
      JSON.stringify({ ...good, attempt: 1.5 }),
      JSON.stringify({ ...good, type: 'finish' }),
      JSON.stringify({ ...good, text: 7 }),
    ]) {
      expect(decodeLive(RUN, bad)).toBeUndefined();
    }
  });
});

describe('a live subscription fed by several attempts of one step', () => {
  it('drops the earlier attempt when a later one streams, even without its withdrawal', async () => {
    const bus = new LiveBus();
    const subscription = new LiveSubscription(bus, RUN);
    await bus.publish(RUN, delta(3, 'Wrong ', 1));
    await bus.publish(RUN, delta(4, 'answer', 1));
    expect(textAt(subscription, 3)).toBe('Wrong ');
    // The withdrawal of attempt 1 was lost; attempt 2 starts over at the step's offset.
    await bus.publish(RUN, delta(3, 'Right', 2));
    expect(subscription.takeWithdrawal()).toBe(true);
    expect(subscription.takeWithdrawal()).toBe(false);
    // A late chunk of attempt 1 is ignored.
    await bus.publish(RUN, delta(4, 'answer', 1));
    expect(textAt(subscription, 3)).toBe('Right');
    expect(textAt(subscription, 4)).toBeUndefined();
    subscription.close();
  });

  it('ignores chunks of an attempt after its withdrawal, and keeps steps apart', async () => {
    const bus = new LiveBus();
    const subscription = new LiveSubscription(bus, RUN);
    await bus.publish(RUN, delta(3, 'Wrong', 1));
    await bus.publish(RUN, withdrawal(1, 'Wrong'));
    expect(subscription.takeWithdrawal()).toBe(true);
    await bus.publish(RUN, delta(4, ' late', 1));
    expect(textAt(subscription, 4)).toBeUndefined();
    // Another step's attempt 1 is new.
    await bus.publish(RUN, delta(9, 'Next step', 1, 9));
    expect(subscription.takeWithdrawal()).toBe(false);
    expect(textAt(subscription, 9)).toBe('Next step');
    subscription.close();
    await bus.publish(RUN, delta(10, 'after close', 1, 9));
    expect(textAt(subscription, 10)).toBeUndefined();
  });
});

describe('liveDeltas options', () => {
  it('refuses a URL that is not Redis, and redis with a transport, naming the fix', () => {
    expect(() => new Tollgate({ liveDeltas: { redis: { url: 'http://cache:6379' } } })).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining('redis://'),
      }),
    );
    expect(
      () =>
        new Tollgate({
          liveDeltas: { redis: { url: 'redis://cache:6379' }, transport: new LiveBus() },
        }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
  });
});
