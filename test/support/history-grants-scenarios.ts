/**
 * The replay gate's scenarios of generation `8-run-grants-decided-notices`: a run grant that
 * approves the other waiting call of its tool; a run grant carried across a continue-as-new; a
 * call with a Slack message decided through the API, whose message the run rewrites.
 */
import type { Tollgate } from '../../src/index.js';
import { expectEqual, resultOf, startSuspended, type Scenario } from './history-scenario-checks.js';
import { ranTimes } from './history-agents.js';

const RUN_GRANT_WAITING: Scenario = {
  fixtures: ['run-grant-covers-waiting'],
  play: async (tollgate) => {
    const name = 'run-grant-covers-waiting';
    const agent = tollgate.getAgent('history-agent');
    await startSuspended(agent, 'Delete both', name);
    expectEqual(name, 'the waiting calls', (await agent.pendingToolCalls(name)).length, 2);
    await agent.approveToolCallGenerate({
      runId: name,
      toolCallId: 'call_a',
      decidedBy: { id: 'alice' },
      grant: { scope: 'run' },
    });
    await resultOf(tollgate, name);
    expectEqual(
      name,
      'executions of a and b',
      [ranTimes('delete-record', 'a'), ranTimes('delete-record', 'b')],
      [1, 1],
    );
    return [{ name, workflowId: name }];
  },
};

const RUN_GRANT_CONTINUED: Scenario = {
  fixtures: ['run-grant-continued-as-new', 'run-grant-after-continue-as-new'],
  play: async (tollgate) => {
    const name = 'run-grant-continued-as-new';
    const agent = tollgate.getAgent('history-long');
    await startSuspended(agent, 'Delete r1 and r2', name);
    const handle = (await tollgate.client()).workflow.getHandle(name);
    const firstRun = (await handle.describe()).runId;
    await agent.approveToolCallGenerate({
      runId: name,
      decidedBy: { id: 'alice' },
      grant: { scope: 'run' },
    });
    const result = await resultOf(tollgate, name);
    expectEqual(name, 'the answer', result.text, 'Done.');
    const lastRun = (await handle.describe()).runId;
    if (lastRun === firstRun) throw new Error(`${name}: the run did not continue as new.`);
    expectEqual(
      name,
      'executions of r1 and r2',
      [ranTimes('delete-record', 'r1'), ranTimes('delete-record', 'r2')],
      [1, 1],
    );
    return [
      { name, workflowId: name, runId: firstRun },
      { name: 'run-grant-after-continue-as-new', workflowId: name, runId: lastRun },
    ];
  },
};

/** `slackUpdates`: the fake Slack's `chat.update` calls so far (the recorder's). */
export function decidedElsewhereScenario(slackUpdates: () => number): Scenario {
  return {
    fixtures: ['slack-decided-elsewhere'],
    play: async (tollgate: Tollgate) => {
      const name = 'slack-decided-elsewhere';
      const agent = tollgate.getAgent('history-slack');
      await startSuspended(agent, 'Delete record r1', name);
      await agent.approveToolCallGenerate({ runId: name, decidedBy: { id: 'carol' } });
      await resultOf(tollgate, name);
      expectEqual(name, 'executions of r1', ranTimes('delete-record', 'r1'), 1);
      // The run waits for its decided notice before it completes.
      expectEqual(name, "Slack's chat.update calls", slackUpdates(), 1);
      return [{ name, workflowId: name }];
    },
  };
}

export const GRANT_SCENARIOS = [RUN_GRANT_WAITING, RUN_GRANT_CONTINUED];
