/**
 * The replay gate's local-mode scenario (from generation `7-stretches`): `history-stretch` looks
 * r1 and r2 up in one stretch (patch `tollgate-stretches`), which ends at the gated delete of r1;
 * the delete is approved and runs once, and a second stretch of one step answers. From
 * generation `10-local-describe` the run describes its agent as a local activity first.
 */
import { expectEqual, resultOf, startSuspended, type Scenario } from './history-scenario-checks.js';
import { ranTimes } from './history-agents.js';

export const STRETCH_SCENARIO: Scenario = {
  fixtures: ['stretch-then-approved'],
  play: async (tollgate) => {
    const name = 'stretch-then-approved';
    const agent = tollgate.getAgent('history-stretch');
    const stream = await startSuspended(agent, 'Look up r1 and r2, then delete r1', name);
    const waiting = await stream.suspendPayload;
    expectEqual(name, 'the waiting call', waiting?.toolCallId, 'call_delete');
    expectEqual(
      name,
      'lookups before the decision',
      [ranTimes('lookup', 'r1'), ranTimes('lookup', 'r2')],
      [1, 1],
    );
    expectEqual(name, 'deletes before the decision', ranTimes('delete-record', 'r1'), 0);
    await agent.approveToolCallGenerate({ runId: name, toolCallId: 'call_delete' });
    const result = await resultOf(tollgate, name);
    expectEqual(name, 'the answer', result.text, 'Done: {"done":"r1"}');
    expectEqual(name, 'deletes', ranTimes('delete-record', 'r1'), 1);
    expectEqual(name, 'lookups', [ranTimes('lookup', 'r1'), ranTimes('lookup', 'r2')], [1, 1]);
    const history = await (await tollgate.client()).workflow.getHandle(name).fetchHistory();
    const stretches = (history.events ?? []).filter(
      (event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity',
    );
    // From generation 10 the describe (patch `tollgate-local-describe`), then steps 1-3 up to the
    // gated call, then the answer.
    expectEqual(name, 'local-activity markers (describe, stretches)', stretches.length, 3);
    return [{ name, workflowId: name }];
  },
};
