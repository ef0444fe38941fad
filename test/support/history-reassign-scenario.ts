/**
 * The replay gate's escalation and hand-off scenario (from generation `7-stretches`, issue 28):
 * `history-governed`'s `escalating` call waits for alice; after 1 s its rules escalate it to
 * `role:managers` (a fired timer), a manager hands it off to bob with a note (an update), and
 * bob's approval (an update) runs the tool once.
 */
import { expectEqual, resultOf, startSuspended, type Scenario } from './history-scenario-checks.js';
import { ranTimes } from './history-agents.js';

export const REASSIGN_SCENARIO: Scenario = {
  fixtures: ['escalated-handed-off-approved'],
  play: async (tollgate) => {
    const name = 'escalated-handed-off-approved';
    const agent = tollgate.getAgent('history-governed');
    await startSuspended(agent, 'escalating e1', name);
    const deadline = Date.now() + 20_000;
    while ((await agent.pendingToolCalls(name))[0]?.approvers?.[0] !== 'role:managers') {
      if (Date.now() > deadline) throw new Error(`${name}: the call did not escalate within 20 s.`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const handed = await agent.handOffToolCall({
      runId: name,
      to: ['bob'],
      note: 'bob owns it',
      decidedBy: { id: 'mia', roles: ['managers'] },
    });
    expectEqual(name, 'the approvers after the hand-off', handed.approvers, ['bob']);
    expectEqual(name, 'executions before the approval', ranTimes('escalating', 'e1'), 0);
    await agent.approveToolCallGenerate({ runId: name, decidedBy: { id: 'bob' } });
    const result = await resultOf(tollgate, name);
    expectEqual(name, 'the answer', result.text, 'Got: {"done":"e1"}');
    expectEqual(name, 'executions of escalating e1', ranTimes('escalating', 'e1'), 1);
    return [{ name, workflowId: name }];
  },
};
