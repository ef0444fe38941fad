/**
 * A worker restart leaves an activity's result and an approval update to arrive in one workflow
 * task (bench/faults/update-race.ts). Whatever order the SDK hands them over in, the run must
 * record the same commands live and on replay: its history replays, a fresh worker finishes it,
 * and every tool ran exactly once. Timing decides which path the first task takes, so the test
 * plays the race several times (one in three attempts broke replay before updates were ordered
 * after events).
 */
import { describe, expect, it } from '@jest/globals';
import { playUpdateRace } from '../bench/faults/update-race.js';
import { uniqueQueue } from './support/harness.js';

const ATTEMPTS = 3;

describe('a worker restart with a tool result and an approval pending together', () => {
  it.each(Array.from({ length: ATTEMPTS }, (_, i) => i + 1))(
    'attempt %i: the history replays, a fresh worker finishes the run, each tool ran once',
    async () => {
      const outcome = await playUpdateRace({
        address: process.env.TEMPORAL_ADDRESS!,
        namespace: process.env.TEMPORAL_NAMESPACE!,
        taskQueue: uniqueQueue('update-race'),
      });
      const { history: _history, ...shown } = outcome;
      expect(shown).toEqual({
        runId: expect.any(String),
        firstApproval: 'applied',
        replay: 'replays',
        ending: expect.stringMatching(/^completed: .*"text":"done"/),
        executions: { 'gated first': 1, 'slow first': 1, 'gated second': 1 },
      });
    },
    120_000,
  );
});
