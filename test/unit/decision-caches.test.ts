import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { RefreshingCache } from '../../src/temporal-client/refreshing-cache.js';
import { RunFactsCache, type RunFacts } from '../../src/temporal-client/run-facts.js';

const facts = (agentId: string): RunFacts => ({
  agentId,
  taskQueue: 'q',
  threadId: undefined,
  resourceId: undefined,
});

describe("a runtime's run facts (pure, no server)", () => {
  it('drops the least recently used run first, a read counting as a use', () => {
    const cache = new RunFactsCache(2);
    cache.set('a', facts('agent-a'));
    cache.set('b', facts('agent-b'));
    expect(cache.get('a')?.agentId).toBe('agent-a');
    cache.set('c', facts('agent-c'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.agentId).toBe('agent-a');
    expect(cache.get('c')?.agentId).toBe('agent-c');
    expect(cache.size).toBe(2);
  });
});

/** An `ask` that counts its calls and answers with their number. */
function counter(): { ask: () => Promise<number>; calls: () => number } {
  let calls = 0;
  return { ask: async () => ++calls, calls: () => calls };
}

describe('answers reused for a while (pure, no server)', () => {
  it('asks once for callers at the same time and while the answer is young', async () => {
    const cache = new RefreshingCache<number>(10_000);
    const { ask, calls } = counter();
    expect(await Promise.all([cache.get('k', ask), cache.get('k', ask)])).toEqual([1, 1]);
    expect(await cache.get('k', ask)).toBe(1);
    expect(await cache.get('other', ask)).toBe(2);
    expect(calls()).toBe(2);
  });

  it('asks again for a caller that needs an answer asked after a given time', async () => {
    const cache = new RefreshingCache<number>(10_000);
    const { ask } = counter();
    expect(await cache.get('k', ask)).toBe(1);
    await sleep(5);
    expect(await cache.get('k', ask, Date.now())).toBe(2);
    // The newer answer is the one given from then on.
    expect(await cache.get('k', ask)).toBe(2);
  });

  it('gives an aging answer at once and renews it in the background, once', async () => {
    const cache = new RefreshingCache<number>(1_000, 20);
    const { ask, calls } = counter();
    expect(await cache.get('k', ask)).toBe(1);
    await sleep(550);
    expect(await Promise.all([cache.get('k', ask), cache.get('k', ask)])).toEqual([1, 1]);
    expect(calls()).toBe(1);
    await sleep(200);
    expect(calls()).toBe(2);
    expect(await cache.get('k', ask)).toBe(2);
  });

  it('asks again, and waits, once the answer is too old', async () => {
    const cache = new RefreshingCache<number>(30);
    const { ask } = counter();
    expect(await cache.get('k', ask)).toBe(1);
    await sleep(50);
    expect(await cache.get('k', ask)).toBe(2);
  });
});
