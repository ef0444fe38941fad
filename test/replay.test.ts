/**
 * Recorded histories of real runs (test/fixtures/histories, made by test/support/record-history.ts)
 * must replay against today's `agentRun`: a change that breaks them would break every run that is
 * in flight when a worker is upgraded.
 */
import { describe, expect, it } from '@jest/globals';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workflowBundle } from '../src/worker.js';

/** The source tree's fixtures, found from `dist/test/`. */
const FIXTURES_DIR = fileURLToPath(new URL('../../test/fixtures/histories/', import.meta.url));
const CHANGED_WORKFLOW = fileURLToPath(new URL('./support/changed-workflow.js', import.meta.url));

/** Decisions (accepted updates) each recording holds, so the replays cover the decision path. */
const EXPECTED_DECISIONS: Record<string, number> = {
  approved: 1,
  declined: 1,
  'parallel-decided-in-reverse': 2,
};

const fixtures = readdirSync(FIXTURES_DIR)
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length))
  .sort();

function readFixture(name: string): { events: Array<{ eventType?: string }> } {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, `${name}.json`), 'utf8')) as {
    events: Array<{ eventType?: string }>;
  };
}

const silent = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

describe('recorded agentRun histories', () => {
  it('are the approved, declined and parallel-decided-in-reverse runs, each completed after its decisions', () => {
    expect(fixtures).toEqual(Object.keys(EXPECTED_DECISIONS).sort());
    for (const name of fixtures) {
      const types = readFixture(name).events.map((event) => event.eventType);
      expect([name, types.at(-1)]).toEqual([name, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED']);
      expect([
        name,
        types.filter((type) => type === 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED').length,
      ]).toEqual([name, EXPECTED_DECISIONS[name]]);
    }
  });

  it.each(fixtures)(
    '%s replays against the current agentRun without a determinism violation',
    async (name) => {
      const history = historyFromJSON(readFixture(name));
      await expect(
        Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, name),
      ).resolves.toBeUndefined();
    },
  );

  it('fails with a DeterminismViolationError when agentRun schedules a different first activity', async () => {
    const changed = await bundleWorkflowCode({ workflowsPath: CHANGED_WORKFLOW, logger: silent });
    const replay = Worker.runReplayHistory(
      { workflowBundle: changed },
      historyFromJSON(readFixture('approved')),
      'approved',
    );
    await expect(replay).rejects.toBeInstanceOf(DeterminismViolationError);
    await expect(replay).rejects.toThrow(/describeAgent|modelStep/);
  });
});
