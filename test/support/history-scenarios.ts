/**
 * The runs that `record-history.ts` records for the replay gate, one scenario per feature. Each
 * scenario drives its runs to the state worth keeping and checks that they did what the fixture
 * claims (answers, how often each tool ran), so a wrong recording fails here and never reaches the
 * fixture folder. The agents are in `history-agents.ts`.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentClient, Tollgate } from '../../src/index.js';
import { THREAD_WORKFLOW, threadWorkflowId } from '../../src/common/wire.js';
import { chunksOf } from './harness.js';
import {
  expectEqual,
  resultOf,
  startSuspended,
  type Recording,
  type Scenario,
} from './history-scenario-checks.js';
import { REASSIGN_SCENARIO } from './history-reassign-scenario.js';
import { STRETCH_SCENARIO } from './history-stretch-scenario.js';
import { GRANT_SCENARIOS } from './history-grants-scenarios.js';
import { FOLLOW_SCENARIOS } from './history-follow-scenario.js';
import { forgetExecutions, ranTimes, THREAD_HISTORY_LIMIT } from './history-agents.js';

export type { Recording, Scenario };

/** Plays one scenario; its checks count only the tool executions it caused. */
export function playScenario(scenario: Scenario, tollgate: Tollgate): Promise<Recording[]> {
  forgetExecutions();
  return scenario.play(tollgate);
}

/** The name and id of a waiting call's tool (SPEC §1 "Tool names": the key, and the id). */
function toolOf(call: { toolName: string; toolId?: string } | undefined): unknown[] {
  return [call?.toolName, call?.toolId];
}

/** The first scenarios: one run of `history-agent`, decided by `decide`. */
function deleteScenario(
  name: string,
  prompt: string,
  decide: (agent: AgentClient, runId: string) => Promise<void>,
  executions: Record<string, number>,
): Scenario {
  return {
    fixtures: [name],
    play: async (tollgate) => {
      const agent = tollgate.getAgent('history-agent');
      const waiting = await (await startSuspended(agent, prompt, name)).suspendPayload;
      expectEqual(name, 'the waiting tool', toolOf(waiting), ['deleteRecord', 'delete-record']);
      await decide(agent, name);
      await resultOf(tollgate, name);
      for (const [id, times] of Object.entries(executions))
        expectEqual(
          name,
          `executions of delete-record ${id}`,
          ranTimes('delete-record', id),
          times,
        );
      return [{ name, workflowId: name }];
    },
  };
}

export const SCENARIOS: Scenario[] = [
  // Recorded into generation 10 (no patch): followers answered by a finish and a continue-as-new.
  ...FOLLOW_SCENARIOS,
  // From generation 8: run grants over waiting calls and across a continue-as-new.
  ...GRANT_SCENARIOS,
  // From generation 7: a local-mode run whose stretch ends at a gated call.
  STRETCH_SCENARIO,
  // From generation 7 (issue 28): an escalation by a timer, a hand-off, then the approval.
  REASSIGN_SCENARIO,
  deleteScenario(
    'approved',
    'Delete record r1',
    async (agent, runId) => {
      await chunksOf(await agent.approveToolCall({ runId, toolCallId: 'call_1' }));
    },
    { r1: 1 },
  ),
  deleteScenario(
    'declined',
    'Delete record r1',
    async (agent, runId) => {
      await chunksOf(await agent.declineToolCall({ runId, toolCallId: 'call_1' }));
    },
    { r1: 0 },
  ),
  deleteScenario(
    'parallel-decided-in-reverse',
    'Delete both records a and b',
    async (agent, runId) => {
      await chunksOf(await agent.approveToolCall({ runId, toolCallId: 'call_b' }));
      await chunksOf(
        await agent.declineToolCall({ runId, toolCallId: 'call_a', reason: 'Keep record a' }),
      );
    },
    { a: 0, b: 1 },
  ),
  // From generation 5: a decline that leaves the other call waiting ends its stretch.
  deleteScenario(
    'declined-beside-waiting',
    'Delete both records a and b',
    async (agent, runId) => {
      await chunksOf(
        await agent.declineToolCall({ runId, toolCallId: 'call_a', reason: 'Keep record a' }),
      );
      await chunksOf(await agent.approveToolCall({ runId, toolCallId: 'call_b' }));
    },
    { a: 0, b: 1 },
  ),
  {
    fixtures: ['suspend-resumed'],
    play: async (tollgate) => {
      const name = 'suspend-resumed';
      const agent = tollgate.getAgent('history-weather');
      await startSuspended(agent, 'What is the weather?', name);
      const resumed = await agent.resumeStream({ city: 'Paris' }, { runId: name });
      await chunksOf(resumed);
      expectEqual(name, 'the answer', await resumed.text, '{"weather":"sunny in Paris"}');
      expectEqual(
        name,
        'executions',
        [ranTimes('get-weather', '(asked)'), ranTimes('get-weather', 'Paris')],
        [1, 1],
      );
      return [{ name, workflowId: name }];
    },
  },
  {
    fixtures: [
      'supervisor-approved',
      'supervisor-approved-ops-child',
      'supervisor-approved-db-grandchild',
    ],
    play: async (tollgate) => {
      const name = 'supervisor-approved';
      const agent = tollgate.getAgent('history-supervisor');
      const stream = await startSuspended(agent, 'Please drop t1', name);
      const waiting = await stream.suspendPayload;
      expectEqual(name, 'the waiting tool', toolOf(waiting), ['dropTable', 'drop-table']);
      const approved = await agent.approveToolCall({
        runId: name,
        toolCallId: waiting!.toolCallId,
        ...(waiting!.fingerprint !== undefined ? { fingerprint: waiting!.fingerprint } : {}),
      });
      await chunksOf(approved);
      expectEqual(name, 'the answer', await approved.text, 'Sup[Ops[DB[{"done":"t1"}]]]');
      expectEqual(name, 'executions of drop-table t1', ranTimes('drop-table', 't1'), 1);
      return [
        { name, workflowId: name },
        { name: `${name}-ops-child`, workflowId: `${name}/call_ops` },
        { name: `${name}-db-grandchild`, workflowId: `${name}/call_ops/call_db` },
      ];
    },
  },
  {
    fixtures: [
      'memory-first',
      'memory-second',
      'memory-thread-continued-as-new',
      'memory-thread-after-continue-as-new',
    ],
    play: playMemory,
  },
  {
    fixtures: ['approval-expired'],
    play: async (tollgate) => {
      const name = 'approval-expired';
      await startSuspended(tollgate.getAgent('history-governed'), 'expiring e1', name);
      const result = await resultOf(tollgate, name);
      expectEqual(name, 'the answer mentions the expiry', result.text.includes('(expired)'), true);
      expectEqual(name, 'executions of expiring e1', ranTimes('expiring', 'e1'), 0);
      return [{ name, workflowId: name }];
    },
  },
  {
    fixtures: ['quorum-of-two'],
    play: async (tollgate) => {
      const name = 'quorum-of-two';
      const agent = tollgate.getAgent('history-governed');
      await startSuspended(agent, 'transfer q1', name);
      const first = await agent.approveToolCall({ runId: name, decidedBy: { id: 'alice' } });
      await chunksOf(first);
      expectEqual(name, 'the run after one approval', await first.finishReason, 'suspended');
      expectEqual(name, 'executions after one approval', ranTimes('transfer', 'q1'), 0);
      const done = await agent.approveToolCallGenerate({ runId: name, decidedBy: { id: 'bob' } });
      expectEqual(name, 'the run after two approvals', done.finishReason, 'stop');
      expectEqual(name, 'executions of transfer q1', ranTimes('transfer', 'q1'), 1);
      return [{ name, workflowId: name }];
    },
  },
  {
    fixtures: ['approved-with-edited-args'],
    play: async (tollgate) => {
      const name = 'approved-with-edited-args';
      const agent = tollgate.getAgent('history-governed');
      await startSuspended(agent, 'edit-record original', name);
      const done = await agent.approveToolCallGenerate({
        runId: name,
        args: { id: 'edited' },
        decidedBy: { id: 'ops' },
      });
      expectEqual(name, 'the run', done.finishReason, 'stop');
      expectEqual(
        name,
        'executions (edited, original)',
        [ranTimes('edit-record', 'edited'), ranTimes('edit-record', 'original')],
        [1, 0],
      );
      return [{ name, workflowId: name }];
    },
  },
];

/**
 * Two runs on one thread (the second sees the first), then the thread's first execution, which
 * continued as new, and the execution after it, which took a third run's messages.
 */
async function playMemory(tollgate: Tollgate): Promise<Recording[]> {
  const agent = tollgate.getAgent('history-memory');
  const memory = { thread: 'history-thread', resource: 'user-1' };
  const first = await agent.generate('Hello, my name is Ada', { memory, runId: 'memory-first' });
  expectEqual('memory-first', 'the answer', first.text, 'Noted (1 user messages so far).');
  const second = await agent.generate('What is my name?', { memory, runId: 'memory-second' });
  expectEqual('memory-second', 'the answer', second.text, 'You are Ada.');

  const threadId = threadWorkflowId('history-memory', memory.resource, memory.thread);
  const thread = (await tollgate.client()).workflow.getHandle(threadId);
  const previousRun = await waitForContinueAsNew(thread);
  const third = await agent.generate('What is my name?', { memory, runId: 'memory-third' });
  expectEqual('memory-third', 'the answer after continue-as-new', third.text, 'You are Ada.');
  const current = await thread.describe();
  expectEqual('memory thread', 'workflow type', current.type, THREAD_WORKFLOW);
  await waitForAppend(tollgate, threadId, current.runId, previousRun);
  return [
    { name: 'memory-first', workflowId: 'memory-first' },
    { name: 'memory-second', workflowId: 'memory-second' },
    { name: 'memory-thread-continued-as-new', workflowId: threadId, runId: previousRun },
    { name: 'memory-thread-after-continue-as-new', workflowId: threadId, runId: current.runId },
  ];
}

/**
 * Waits until the thread's execution after continue-as-new has applied the third run's append
 * (a replayable open history ends with a completed workflow task), and checks that it is the
 * execution right after `previousRun`.
 */
async function waitForAppend(
  tollgate: Tollgate,
  threadId: string,
  runId: string,
  previousRun: string,
): Promise<void> {
  const handle = (await tollgate.client()).workflow.getHandle(threadId, runId);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const events = (await handle.fetchHistory()).events ?? [];
    const started = events[0]?.workflowExecutionStartedEventAttributes;
    if (started?.continuedExecutionRunId !== previousRun)
      throw new Error(
        `memory thread: it continued as new more than once; raise THREAD_HISTORY_LIMIT (${THREAD_HISTORY_LIMIT}).`,
      );
    const signalled = events.some((e) => e.workflowExecutionSignaledEventAttributes);
    if (signalled && events.at(-1)?.workflowTaskCompletedEventAttributes) return;
    if (Date.now() > deadline)
      throw new Error("memory thread: the third run's append was not applied within 20 s.");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Waits until the thread runs in a continued execution; returns the run it continued from. */
async function waitForContinueAsNew(thread: WorkflowHandle): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const history = await thread.fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    const previous = started?.continuedExecutionRunId;
    if (previous) return previous;
    if (Date.now() > deadline)
      throw new Error(
        `memory thread: it did not continue as new within 20 s; lower THREAD_HISTORY_LIMIT (${THREAD_HISTORY_LIMIT}).`,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
