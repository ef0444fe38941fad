import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getEventListeners } from 'node:events';
import type { Tollgate } from '../src/index.js';
import { abortableCall } from '../src/temporal-client/abortable-call.js';
import { eventually, gatedTestAgent, hostAgents } from './support/harness.js';

/** Issue 13, finding 6: an open observer of a parked run must not gather anything per poll. */
describe('observers of parked runs', () => {
  const { agent } = gatedTestAgent('listeners-agent');
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'listeners');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  it('leave no abort listener behind on any signal, however many polls they make', async () => {
    const client = await tollgate.client();
    // Every signal the connection is handed for a call: the tail's polls go through here.
    const signals = new Set<AbortSignal>();
    let calls = 0;
    const original = client.connection.withAbortSignal.bind(client.connection);
    client.connection.withAbortSignal = (signal, fn) => {
      signals.add(signal);
      calls++;
      return original(signal, fn);
    };
    try {
      const parked = await tollgate.getAgent('listeners-agent').stream('Delete rec-1.');
      expect(await parked.finishReason).toBe('suspended');
      const observer = await tollgate
        .getAgent('listeners-agent')
        .observe({ runId: parked.runId, offset: await parked.nextOffset });
      let ended = false;
      void observer.finishReason.finally(() => (ended = true));
      // A parked run: the tail reads its log every couple of seconds and long-polls its history.
      await eventually(async () => expect(calls).toBeGreaterThanOrEqual(12), 90_000);
      expect(ended).toBe(false);
      const most = Math.max(...[...signals].map((s) => getEventListeners(s, 'abort').length));
      // Before the fix one long-lived signal carried one listener per call made with it.
      expect(most).toBeLessThanOrEqual(2);
      await (await tollgate.client()).workflow.getHandle(parked.runId).terminate('test done');
      expect(await observer.finishReason).toBe('error');
    } finally {
      client.connection.withAbortSignal = original;
    }
  });

  it('abortableCall leaves the caller’s signal as it found it', async () => {
    const client = await tollgate.client();
    const lifetime = new AbortController();
    const before = getEventListeners(lifetime.signal, 'abort').length;
    for (let i = 0; i < 50; i++) {
      await abortableCall(client.connection, lifetime.signal, () =>
        client.workflowService.getSystemInfo({}),
      );
    }
    expect(getEventListeners(lifetime.signal, 'abort')).toHaveLength(before);
  });
});
