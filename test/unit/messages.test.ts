import { describe, expect, it } from '@jest/globals';
import * as messages from '../../src/common/messages.js';
import { QUERIES, SIGNALS, UPDATES } from '../../src/common/wire.js';

describe('message definitions, typed once (pure, no server)', () => {
  it('define each decision as a signal and an update under the wire names of SPEC §8', () => {
    for (const kind of ['approve', 'decline', 'resume'] as const) {
      expect(messages.decisionSignals[kind]).toEqual({ type: 'signal', name: SIGNALS[kind] });
    }
    expect(messages.decisionUpdates.approve.name).toBe(UPDATES.approveToolCall);
    expect(messages.decisionUpdates.decline.name).toBe(UPDATES.declineToolCall);
    expect(messages.decisionUpdates.resume.name).toBe(UPDATES.resumeToolCall);
    expect(messages.pendingToolCallsQuery).toEqual({
      type: 'query',
      name: QUERIES.pendingToolCalls,
    });
  });

  it('give every definition a distinct name within its kind', () => {
    const definitions = Object.values(messages).flatMap((value) =>
      'type' in value ? [value] : Object.values(value),
    ) as Array<{ type: string; name: string }>;
    const keys = definitions.map((d) => `${d.type}:${d.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(definitions.length).toBeGreaterThanOrEqual(14);
  });
});
