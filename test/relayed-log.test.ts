import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { Agent, createTool, type Tollgate } from '../src/index.js';
import type { AgentStream } from '../src/stream/agent-stream.js';
import type { HistoryEvent } from '../src/temporal-client/run-ending.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import {
  chunksOf,
  gatedTestAgent,
  hostAgents,
  logByQueries,
  recordingTool,
  typesOf,
} from './support/harness.js';
import { holdingAnswer } from './support/held-answer.js';

/** Runs `body` with a count of the queries `client` sends meanwhile; then puts the service back. */
async function countingQueries(
  client: Client,
  body: (queries: () => number) => Promise<void>,
): Promise<void> {
  const service = client.workflowService;
  const original = service.queryWorkflow;
  let count = 0;
  service.queryWorkflow = ((...args: Parameters<typeof original>) => {
    count++;
    return original.apply(service, args);
  }) as typeof original;
  try {
    await body(() => count);
  } finally {
    service.queryWorkflow = original;
  }
}

/**
 * A local-mode agent: a `local` lookup (stretched, ungated) and a gated delete that runs as an
 * activity. "Look up" calls the lookup, "Delete" the delete; after a tool's result it answers.
 */
function localAgent() {
  const lookup = recordingTool('lookup');
  const remove = recordingTool('delete-record', { requireApproval: true });
  const agent = new Agent({
    id: 'relay-local-agent',
    instructions: 'You are a test agent.',
    model: scriptedModel((prompt) => {
      const last = prompt.at(-1);
      if (last?.role === 'tool') return { text: 'Done.' };
      const text = JSON.stringify(last?.content ?? '');
      const toolName = text.includes('Delete') ? 'delete-record' : 'lookup';
      return { toolCalls: [{ toolName, args: { id: 'rec-1' } }] };
    }, 'relay-local-agent'),
    tools: { lookup: createTool({ ...lookup.tool, local: true }), 'delete-record': remove.tool },
    execution: { modelSteps: 'local' },
  });
  return { agent, lookups: lookup.executions, deletions: remove.executions };
}

/**
 * Holds the first long poll of `runId`'s history that `client` sends until `until` resolves, as
 * a stream that began following late would send it; `body` gets that poll's answer (its events)
 * once it is in. Puts the service back after `body`.
 */
async function holdingFirstHistoryPoll(
  client: Client,
  runId: string,
  until: Promise<void>,
  body: (answered: Promise<HistoryEvent[]>) => Promise<void>,
): Promise<void> {
  const service = client.workflowService;
  const original = service.getWorkflowExecutionHistory;
  let held = false;
  let answer!: (events: HistoryEvent[]) => void;
  const answered = new Promise<HistoryEvent[]>((resolve) => (answer = resolve));
  service.getWorkflowExecutionHistory = (async (
    ...args: Parameters<typeof original>
  ): Promise<Awaited<ReturnType<typeof original>>> => {
    const [request] = args;
    if (held || !request.waitNewEvent || request.execution?.workflowId !== runId) {
      return original.apply(service, args);
    }
    held = true;
    await until;
    const response = await original.apply(service, args);
    answer(response.history?.events ?? []);
    return response;
  }) as typeof original;
  try {
    await body(answered);
  } finally {
    service.getWorkflowExecutionHistory = original;
  }
}

/**
 * A local-mode agent whose gated delete runs as an activity and whose answer to the delete's
 * result, a local model step in the workflow task that reads that result, waits for the test's
 * `release()` and says so through `answering`.
 */
function heldAnswerAgent() {
  const remove = recordingTool('delete-record', { requireApproval: true });
  const held = holdingAnswer(
    scriptedModel(
      (prompt) =>
        prompt.at(-1)?.role === 'tool'
          ? { text: 'Deleted.' }
          : { toolCalls: [{ toolName: 'delete-record', args: { id: 'rec-1' } }] },
      'relay-held-agent',
    ),
  );
  const agent = new Agent({
    id: 'relay-held-agent',
    instructions: 'You are a test agent.',
    model: held.model,
    tools: { 'delete-record': remove.tool },
    execution: { modelSteps: 'local' },
  });
  return { agent, deletions: remove.executions, answering: held.entered, release: held.release };
}

describe("a stream in the worker's own process", () => {
  const { agent, executions } = gatedTestAgent('relay-agent');
  const local = localAgent();
  const held = heldAnswerAgent();
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent, local.agent, held.agent], 'relay');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  it('reads the log its worker relayed, with no query, and the same chunks a query reads', async () => {
    const relayAgent = tollgate.getAgent('relay-agent');
    await countingQueries(await tollgate.client(), async (queries) => {
      const first = await chunksOf(await relayAgent.stream('Delete rec-1'));
      expect(typesOf(first)).toEqual([
        'start',
        'step-start',
        'tool-call',
        'step-finish',
        'tool-call-approval',
        'finish',
      ]);
      const runId = first[0]!.runId;
      const approved = await relayAgent.approveToolCall({ runId });
      const rest = await chunksOf(approved);
      expect(typesOf(rest)).toEqual([
        'tool-result',
        'step-start',
        'text-delta',
        'step-finish',
        'finish',
      ]);
      expect(executions).toHaveLength(1);
      // Each workflow task's chunks came from this process's worker once history showed the task
      // completed: the run answered no query (each would have cost its worker a workflow task).
      expect(queries()).toBe(0);

      // The closed run is no longer relayed: an observer reads it from the run's result, with
      // no query either (a stream ends at each finish, the suspended one too).
      expect(await chunksOf(await relayAgent.observe({ runId }))).toEqual(first);
      const observed = await relayAgent.observe({ runId, offset: first.length });
      expect(await chunksOf(observed)).toEqual(rest);
      expect(queries()).toBe(0);
      // A query of the closed run reads the same log.
      expect(await logByQueries(await tollgate.client(), runId)).toEqual([...first, ...rest]);
    });
  });

  it('reads a local-mode run from its worker once the run closed, with no query', async () => {
    const localAgentHandle = tollgate.getAgent('relay-local-agent');
    await countingQueries(await tollgate.client(), async (queries) => {
      // Its chunks relay at close: a stream that follows it to its end sends no query.
      const chunks = await chunksOf(await localAgentHandle.stream('Look up rec-1'));
      expect(typesOf(chunks)).toEqual([
        'start',
        'step-start',
        'tool-call',
        'step-finish',
        'tool-result',
        'step-start',
        'text-delta',
        'step-finish',
        'finish',
      ]);
      expect(local.lookups).toHaveLength(1);
      expect(queries()).toBe(0);
      // An observer of the closed run reads the same log, and so does a query.
      const runId = chunks[0]!.runId;
      expect(await chunksOf(await localAgentHandle.observe({ runId }))).toEqual(chunks);
      expect(await logByQueries(await tollgate.client(), runId)).toEqual(chunks);
    });
  });

  it('shows a parked local-mode run, approved, as a query reads it', async () => {
    const localAgentHandle = tollgate.getAgent('relay-local-agent');
    const first = await chunksOf(await localAgentHandle.stream('Delete rec-1'));
    expect(first.at(-1)?.type).toBe('finish');
    expect(typesOf(first)).toContain('tool-call-approval');
    const runId = first[0]!.runId;
    const rest = await chunksOf(await localAgentHandle.approveToolCall({ runId }));
    expect(typesOf(rest)).toEqual([
      'tool-result',
      'step-start',
      'text-delta',
      'step-finish',
      'finish',
    ]);
    expect(local.deletions).toHaveLength(1);
    // Read by queries while it is open and from its worker once it closed: a query of the
    // closed run reads the same chunks.
    const observed = await localAgentHandle.observe({ runId, offset: first.length });
    expect(await chunksOf(observed)).toEqual(rest);
  });

  it('sends no query while the workflow task that answers an approval runs, and streams its chunks once it ends', async () => {
    const heldAgent = tollgate.getAgent('relay-held-agent');
    const first = await chunksOf(await heldAgent.stream('Delete rec-1'));
    expect(typesOf(first)).toContain('tool-call-approval');
    const runId = first[0]!.runId;
    const client = await tollgate.client();
    await countingQueries(client, async (queries) => {
      let approved!: AgentStream;
      let history: HistoryEvent[] = [];
      let queriedWhileRunning = -1;
      // The approval's stream first reads the history once the task that reads the delete's
      // result runs its local answering step. Unheld, that read would mostly come while the
      // delete still ran, when the stream queries whichever way it waits.
      await holdingFirstHistoryPoll(client, runId, held.answering, async (answered) => {
        try {
          approved = await heldAgent.approveToolCall({ runId });
          history = await answered;
          // The stream acts on that answer at once: a query would be sent by now, and Temporal
          // would hold it until the task ended.
          await sleep(200);
          queriedWhileRunning = queries();
        } finally {
          held.release();
        }
      });
      const rest = await chunksOf(approved);
      // That history ends in the answering task, started and not ended.
      expect(history.at(-1)?.workflowTaskStartedEventAttributes).toBeTruthy();
      expect(queriedWhileRunning).toBe(0);
      expect(typesOf(rest)).toEqual([
        'tool-result',
        'step-start',
        'text-delta',
        'step-finish',
        'finish',
      ]);
      expect(held.deletions).toHaveLength(1);
      // The task's end woke the stream, and the run it closed was read from its worker.
      expect(queries()).toBe(0);

      // An observer of the closed run reads the same chunks, and so does a query.
      expect(await chunksOf(await heldAgent.observe({ runId, offset: first.length }))).toEqual(
        rest,
      );
      expect(await logByQueries(client, runId)).toEqual([...first, ...rest]);
    });
  });
});
