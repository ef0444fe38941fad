/**
 * Recorded histories of real executions (test/fixtures/histories, made by
 * test/support/record-history.ts) must replay against today's workflow code, `agentRun` and
 * `agentThread` alike: a change that breaks them would break every run that is in flight when a
 * worker is upgraded.
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

/** What each recording must show, so a replay covers the path its name promises. */
interface Expected {
  type: 'agentRun' | 'agentThread';
  /**
   * The execution's last event: how it ended, or `open` for one still running whose last workflow
   * task completed (a history cut off before that would not replay to the end).
   */
  ends: 'COMPLETED' | 'CONTINUED_AS_NEW' | 'open';
  /** Accepted updates: decisions sent as updates. */
  updates?: number;
  /** Signals: decisions forwarded to sub-agent runs, child status, thread appends. */
  signals?: number;
  /** Fired timers: approval deadlines. */
  timers?: number;
  /** Sub-agent runs started as child workflows. */
  children?: number;
}

const EXPECTED: Record<string, Expected> = {
  approved: { type: 'agentRun', ends: 'COMPLETED', updates: 1 },
  declined: { type: 'agentRun', ends: 'COMPLETED', updates: 1 },
  'parallel-decided-in-reverse': { type: 'agentRun', ends: 'COMPLETED', updates: 2 },
  'suspend-resumed': { type: 'agentRun', ends: 'COMPLETED', updates: 1 },
  'supervisor-approved': {
    type: 'agentRun',
    ends: 'COMPLETED',
    updates: 1,
    signals: 3,
    children: 1,
  },
  'supervisor-approved-ops-child': { type: 'agentRun', ends: 'COMPLETED', signals: 3, children: 1 },
  'supervisor-approved-db-grandchild': { type: 'agentRun', ends: 'COMPLETED', signals: 1 },
  'memory-first': { type: 'agentRun', ends: 'COMPLETED' },
  'memory-second': { type: 'agentRun', ends: 'COMPLETED' },
  'memory-thread-continued-as-new': { type: 'agentThread', ends: 'CONTINUED_AS_NEW', signals: 2 },
  'memory-thread-after-continue-as-new': { type: 'agentThread', ends: 'open', signals: 1 },
  'approval-expired': { type: 'agentRun', ends: 'COMPLETED', timers: 1 },
  'quorum-of-two': { type: 'agentRun', ends: 'COMPLETED', updates: 2 },
  'approved-with-edited-args': { type: 'agentRun', ends: 'COMPLETED', updates: 1 },
};

interface FixtureEvent {
  eventType?: string;
  workflowExecutionStartedEventAttributes?: {
    workflowType?: { name?: string };
    workflowId?: string;
    continuedExecutionRunId?: string;
  };
}

const fixtures = readdirSync(FIXTURES_DIR)
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length))
  .sort();

function readFixture(name: string): { events: FixtureEvent[] } {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, `${name}.json`), 'utf8')) as {
    events: FixtureEvent[];
  };
}

/** The workflow type and id, from the history's first event (`WorkflowExecutionStarted`). */
function startOf(name: string): { type: string; workflowId: string } {
  const started = readFixture(name).events[0]?.workflowExecutionStartedEventAttributes;
  return { type: started?.workflowType?.name ?? '', workflowId: started?.workflowId ?? name };
}

function shapeOf(name: string): Expected {
  const types = readFixture(name).events.map((event) =>
    (event.eventType ?? '').replace('EVENT_TYPE_', ''),
  );
  const count = (type: string) => types.filter((t) => t === type).length;
  const last = types.at(-1) ?? '';
  const shape: Expected = {
    type: startOf(name).type as Expected['type'],
    ends: (last === 'WORKFLOW_TASK_COMPLETED'
      ? 'open'
      : last.replace('WORKFLOW_EXECUTION_', '')) as Expected['ends'],
  };
  const counts = {
    updates: count('WORKFLOW_EXECUTION_UPDATE_ACCEPTED'),
    signals: count('WORKFLOW_EXECUTION_SIGNALED'),
    timers: count('TIMER_FIRED'),
    children: count('START_CHILD_WORKFLOW_EXECUTION_INITIATED'),
  };
  for (const [key, value] of Object.entries(counts))
    if (value > 0) Object.assign(shape, { [key]: value });
  return shape;
}

const silent = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

describe('recorded workflow histories', () => {
  it('are exactly the described recordings, each showing the path its name promises', () => {
    expect(fixtures).toEqual(Object.keys(EXPECTED).sort());
    for (const name of fixtures) expect([name, shapeOf(name)]).toEqual([name, EXPECTED[name]]);
  });

  it('include an agentThread execution that continued as new and the execution after it', () => {
    const after = readFixture('memory-thread-after-continue-as-new').events[0];
    const before = startOf('memory-thread-continued-as-new');
    expect(after?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toEqual(
      expect.any(String),
    );
    expect(startOf('memory-thread-after-continue-as-new').workflowId).toBe(before.workflowId);
  });

  it.each(fixtures)(
    '%s replays against the current workflow code without a determinism violation',
    async (name) => {
      const { workflowId } = startOf(name);
      const history = historyFromJSON(readFixture(name));
      await expect(
        Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, workflowId),
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
