/**
 * Recorded histories of real executions (test/fixtures/histories/<generation>, made by
 * test/support/record-history.ts) must replay against today's workflow code, `agentRun` and
 * `agentThread` alike, those of every generation: a change that breaks them would break every run
 * that is in flight when a worker is upgraded.
 */
import { describe, expect, it } from '@jest/globals';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { fileURLToPath } from 'node:url';
import { ONE_MARKER_2_PATCH, ONE_MARKER_PATCH } from '../src/workflows/patch-markers.js';
import { workflowBundle } from '../src/worker.js';
import { silentLogger } from './support/harness.js';
import {
  fixturesOf,
  GENERATIONS,
  readFixture,
  type FixtureEvent,
} from './support/fixture-generations.js';
import {
  AGENT_QUEUES_PATCH,
  CHANNELS_PATCH,
  CONTINUE_AS_NEW_PATCH,
  DECLINE_ENDS_STRETCH_PATCH,
  DEFINITION_REGATE_PATCH,
  GRANTS_NOTICES_PATCH,
  HANDLERS_FINISHED_PATCH,
  HERE_FIRST_PATCH,
  LOCAL_DESCRIBE_PATCH,
  PUBLISH_ON_CHANGE_PATCH,
  REQUEST_TIGHTENS_PATCH,
  STRETCHES_PATCH,
  TOOL_KEYS_PATCH,
  UPDATES_AFTER_EVENTS_PATCH,
} from '../src/workflows/patch-ids.js';

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
  'declined-beside-waiting': { type: 'agentRun', ends: 'COMPLETED', updates: 2 },
  'stretch-then-approved': { type: 'agentRun', ends: 'COMPLETED', updates: 1 },
  // A hand-off and an approval (updates); the escalation's timer.
  'escalated-handed-off-approved': { type: 'agentRun', ends: 'COMPLETED', updates: 2, timers: 1 },
  // One approval with a run grant; the other waiting call is released by it.
  'run-grant-covers-waiting': { type: 'agentRun', ends: 'COMPLETED', updates: 1 },
  // The approval with a run grant, then the continue-as-new that carries it...
  'run-grant-continued-as-new': { type: 'agentRun', ends: 'CONTINUED_AS_NEW', updates: 1 },
  // ...and the execution after it, whose gated call the carried grant lets through.
  'run-grant-after-continue-as-new': { type: 'agentRun', ends: 'COMPLETED' },
  // Approved by update; the run rewrites the call's Slack message (a decided notice).
  'slack-decided-elsewhere': { type: 'agentRun', ends: 'COMPLETED', updates: 1 },
  // A follower (update) answered by the run's last finish, and the approval.
  'followed-approved': { type: 'agentRun', ends: 'COMPLETED', updates: 2 },
  // A follower answered by the continue-as-new, and the approval.
  'followed-continued-as-new': { type: 'agentRun', ends: 'CONTINUED_AS_NEW', updates: 2 },
  // Started with a follower (update-with-start) that the park answered; approved; followed.
  'followed-from-start': { type: 'agentRun', ends: 'COMPLETED', updates: 3 },
};

/** Scenarios added after the first generation: the generation that first recorded each. */
const FIRST_RECORDED_IN: Record<string, number> = {
  'declined-beside-waiting': 5,
  'stretch-then-approved': 7,
  'escalated-handed-off-approved': 7,
  'run-grant-covers-waiting': 8,
  'run-grant-continued-as-new': 8,
  'run-grant-after-continue-as-new': 8,
  'slack-decided-elsewhere': 8,
  'followed-approved': 10,
  'followed-continued-as-new': 10,
  'followed-from-start': 10,
};

/** The scenarios a generation holds: every scenario that existed when it was recorded. */
function scenariosOf(generation: string): string[] {
  const number = parseInt(generation, 10);
  return Object.keys(EXPECTED)
    .filter((name) => (FIRST_RECORDED_IN[name] ?? 1) <= number)
    .sort();
}

/**
 * From generation 4 on a sub-agent sends its parent no report that repeats the previous one: the
 * top run of the supervisor tree gets two, not three.
 */
const EXPECTED_FROM_4: Record<string, Partial<Expected>> = {
  'supervisor-approved': { signals: 2 },
};

function expectedOf(generation: string, name: string): Expected {
  return { ...EXPECTED[name]!, ...(parseInt(generation, 10) >= 4 ? EXPECTED_FROM_4[name] : {}) };
}

/** Patches each generation's `agentRun` histories record: the generation's workflow changes. */
const TOOL_KEYS_PATCHES = [UPDATES_AFTER_EVENTS_PATCH, TOOL_KEYS_PATCH, HANDLERS_FINISHED_PATCH];
const AGENT_QUEUES_PATCHES = [...TOOL_KEYS_PATCHES, REQUEST_TIGHTENS_PATCH, AGENT_QUEUES_PATCH];
const HERE_FIRST_PATCHES = [...AGENT_QUEUES_PATCHES, HERE_FIRST_PATCH];
const PATCHES: Record<string, string[]> = {
  '1-first-release': [],
  '2-updates-after-events': [UPDATES_AFTER_EVENTS_PATCH],
  '3-tool-keys': TOOL_KEYS_PATCHES,
  '4-publish-on-change': TOOL_KEYS_PATCHES,
  '5-agent-queues': AGENT_QUEUES_PATCHES,
  '6-agent-work-here-first': HERE_FIRST_PATCHES,
  // Stretches change only local-mode runs: the re-recorded remote scenarios record what 6 did.
  '7-stretches': HERE_FIRST_PATCHES,
  // Run grants and decided notices ask their patch only where they act (below).
  '8-run-grants-decided-notices': HERE_FIRST_PATCHES,
  // Recorded with `patchMarkers: 'one'`: one marker stands for every patch above.
  '9-one-marker': [ONE_MARKER_PATCH],
  // The local-mode run describes its agent locally (below); the others record what 9 did.
  '10-local-describe': [ONE_MARKER_PATCH],
  // Every run describes its agent locally (`RunInput.describeHere`), sub-agent runs too.
  '11-describe-here': [ONE_MARKER_PATCH, LOCAL_DESCRIBE_PATCH],
  // The newest one marker stands for the local describe's patch too: one marker, nothing else.
  '12-one-marker-2': [ONE_MARKER_2_PATCH],
};

/**
 * Patches a run with the first one marker asks beside it, by fixture, in generations 10 and 11
 * (the second one marker stands for them).
 */
const ONE_MARKER_PATCHES_WHERE_NEEDED: Record<string, string[]> = {
  'stretch-then-approved': [LOCAL_DESCRIBE_PATCH],
};

/** From this generation on, runs record one marker: no patch is asked where needed. */
const ONE_MARKER_FROM = 9;
/** From this generation on, runs record the second one marker. */
const ONE_MARKER_2_FROM = 12;

/**
 * Patches asked only when a run needs them, by fixture, from generation 4 on:
 * `tollgate-publish-on-change` where a status or a report would have repeated.
 */
const PATCHES_WHERE_NEEDED: Record<string, string[]> = {
  'quorum-of-two': [PUBLISH_ON_CHANGE_PATCH],
  'supervisor-approved': [PUBLISH_ON_CHANGE_PATCH],
  'supervisor-approved-ops-child': [PUBLISH_ON_CHANGE_PATCH],
  'supervisor-approved-db-grandchild': [PUBLISH_ON_CHANGE_PATCH],
  // From generation 5: the decline that leaves the other call waiting ends its stretch.
  'declined-beside-waiting': [DECLINE_ENDS_STRETCH_PATCH],
  // The escalation and the hand-off show the call again; its status repeats and is left out.
  'escalated-handed-off-approved': [PUBLISH_ON_CHANGE_PATCH],
  // From generation 7: a local-mode run decides these before its first local work.
  'stretch-then-approved': [
    CONTINUE_AS_NEW_PATCH,
    CHANNELS_PATCH,
    DECLINE_ENDS_STRETCH_PATCH,
    DEFINITION_REGATE_PATCH,
    STRETCHES_PATCH,
  ],
  // From generation 8: where a run grant covers a waiting call (its carry: below).
  'run-grant-covers-waiting': [GRANTS_NOTICES_PATCH],
  // A call with a Slack notice decided outside Slack.
  'slack-decided-elsewhere': [CHANNELS_PATCH, GRANTS_NOTICES_PATCH],
};

/**
 * The patches of the executions of a run that continued as new, exactly: the first never
 * completes (no `tollgate-handlers-finished`) and asks for the continue-as-new and the carry of
 * its run grant; the next asks again only what is not decided when a run starts (the rest
 * travels in its input).
 */
const CONTINUED_EXECUTION_PATCHES: Record<string, string[]> = {
  'run-grant-continued-as-new': [
    UPDATES_AFTER_EVENTS_PATCH,
    TOOL_KEYS_PATCH,
    REQUEST_TIGHTENS_PATCH,
    AGENT_QUEUES_PATCH,
    HERE_FIRST_PATCH,
    CONTINUE_AS_NEW_PATCH,
    GRANTS_NOTICES_PATCH,
  ],
  'run-grant-after-continue-as-new': [
    UPDATES_AFTER_EVENTS_PATCH,
    AGENT_QUEUES_PATCH,
    HERE_FIRST_PATCH,
    HANDLERS_FINISHED_PATCH,
  ],
};

function patchesExpected(generation: string, name: string): string[] {
  if (startOf(generation, name).type !== 'agentRun') return [];
  const number = parseInt(generation, 10);
  if (number >= ONE_MARKER_FROM) {
    const needed =
      number >= 10 && number < ONE_MARKER_2_FROM
        ? (ONE_MARKER_PATCHES_WHERE_NEEDED[name] ?? [])
        : [];
    return [...new Set([...PATCHES[generation]!, ...needed])].sort();
  }
  const continued = CONTINUED_EXECUTION_PATCHES[name];
  if (continued) return [...continued].sort();
  const needed = number >= 4 ? (PATCHES_WHERE_NEEDED[name] ?? []) : [];
  return [...PATCHES[generation]!, ...needed].sort();
}

/** The workflow type and id, from the history's first event (`WorkflowExecutionStarted`). */
function startOf(generation: string, name: string): { type: string; workflowId: string } {
  const started = readFixture(generation, name).events[0]?.workflowExecutionStartedEventAttributes;
  return { type: started?.workflowType?.name ?? '', workflowId: started?.workflowId ?? name };
}

/** The ids of the patches a history recorded (markers named `core_patch`). */
function patchesOf(events: FixtureEvent[]): string[] {
  return events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    const data =
      marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads : [];
    return (data ?? []).map(
      (payload) =>
        (JSON.parse(Buffer.from(payload.data ?? '', 'base64').toString()) as { id: string }).id,
    );
  });
}

function shapeOf(generation: string, name: string): Expected {
  const types = readFixture(generation, name).events.map((event) =>
    (event.eventType ?? '').replace('EVENT_TYPE_', ''),
  );
  const count = (type: string) => types.filter((t) => t === type).length;
  const last = types.at(-1) ?? '';
  const shape: Expected = {
    type: startOf(generation, name).type as Expected['type'],
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

const cases = GENERATIONS.flatMap((generation) =>
  fixturesOf(generation).map((name) => [generation, name] as const),
);

describe('recorded workflow histories', () => {
  it('come in the described generations', () => {
    expect(GENERATIONS).toEqual(Object.keys(PATCHES));
  });

  describe.each(GENERATIONS)('of generation %s', (generation) => {
    it('are exactly the described recordings, each showing the path its name promises', () => {
      const fixtures = fixturesOf(generation);
      expect(fixtures).toEqual(scenariosOf(generation));
      for (const name of fixtures)
        expect([name, shapeOf(generation, name)]).toEqual([name, expectedOf(generation, name)]);
    });

    it("record the generation's patches in every agent run, those asked where needed, and no others", () => {
      for (const name of fixturesOf(generation)) {
        const recorded = patchesOf(readFixture(generation, name).events).sort();
        expect([name, recorded]).toEqual([name, patchesExpected(generation, name)]);
      }
    });

    it('include an agentThread execution that continued as new and the execution after it', () => {
      const after = readFixture(generation, 'memory-thread-after-continue-as-new').events[0];
      const before = startOf(generation, 'memory-thread-continued-as-new');
      expect(after?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toEqual(
        expect.any(String),
      );
      expect(startOf(generation, 'memory-thread-after-continue-as-new').workflowId).toBe(
        before.workflowId,
      );
    });
  });

  it('include, from generation 8, an agentRun execution that continued as new and the one after it', () => {
    for (const generation of GENERATIONS.filter((g) => parseInt(g, 10) >= 8)) {
      const after = readFixture(generation, 'run-grant-after-continue-as-new').events[0];
      expect(after?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toEqual(
        expect.any(String),
      );
      expect(startOf(generation, 'run-grant-after-continue-as-new').workflowId).toBe(
        startOf(generation, 'run-grant-continued-as-new').workflowId,
      );
    }
  });

  it.each(cases)(
    '%s/%s replays against the current workflow code without a determinism violation',
    async (generation, name) => {
      const { workflowId } = startOf(generation, name);
      const history = historyFromJSON(readFixture(generation, name));
      await expect(
        Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, workflowId),
      ).resolves.toBeUndefined();
    },
  );

  it('fails with a DeterminismViolationError when agentRun schedules a different first activity', async () => {
    const changed = await bundleWorkflowCode({
      workflowsPath: CHANGED_WORKFLOW,
      logger: silentLogger,
    });
    const replay = Worker.runReplayHistory(
      { workflowBundle: changed },
      historyFromJSON(readFixture(GENERATIONS[0]!, 'approved')),
      'approved',
    );
    await expect(replay).rejects.toBeInstanceOf(DeterminismViolationError);
    await expect(replay).rejects.toThrow(/describeAgent|modelStep/);
  });
});
