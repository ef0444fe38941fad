import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { Agent, createTool, type Tollgate } from '../src/index.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import { chunksOf, gatedTestAgent, hostAgents, recordingTool, typesOf } from './support/harness.js';

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

describe("a stream in the worker's own process", () => {
  const { agent, executions } = gatedTestAgent('relay-agent');
  const local = localAgent();
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent, local.agent], 'relay');
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

      // The closed run is no longer relayed: observing it queries, and reads the same log (a
      // stream ends at each finish, the suspended one too).
      expect(await chunksOf(await relayAgent.observe({ runId }))).toEqual(first);
      const observed = await relayAgent.observe({ runId, offset: first.length });
      expect(await chunksOf(observed)).toEqual(rest);
      expect(queries()).toBeGreaterThan(0);
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
      // A query of the closed run reads the same log.
      expect(await chunksOf(await localAgentHandle.observe({ runId: chunks[0]!.runId }))).toEqual(
        chunks,
      );
      expect(queries()).toBeGreaterThan(0);
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
});
