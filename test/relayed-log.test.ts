import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { Tollgate } from '../src/index.js';
import { chunksOf, gatedTestAgent, hostAgents, typesOf } from './support/harness.js';

/** Counts the queries `client` sends from now on; `stop()` puts the service back as it was. */
function countQueries(client: Client): { count: () => number; stop: () => void } {
  const service = client.workflowService;
  const original = service.queryWorkflow;
  let count = 0;
  service.queryWorkflow = ((...args: Parameters<typeof original>) => {
    count++;
    return original.apply(service, args);
  }) as typeof original;
  return { count: () => count, stop: () => void (service.queryWorkflow = original) };
}

describe("a stream in the worker's own process", () => {
  const { agent, executions } = gatedTestAgent('relay-agent');
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'relay');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  it('reads the log its worker relayed, with no query, and the same chunks a query reads', async () => {
    const relayAgent = tollgate.getAgent('relay-agent');
    const queries = countQueries(await tollgate.client());
    try {
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
      expect(queries.count()).toBe(0);

      // The closed run is no longer relayed: observing it queries, and reads the same log (a
      // stream ends at each finish, the suspended one too).
      expect(await chunksOf(await relayAgent.observe({ runId }))).toEqual(first);
      const observed = await relayAgent.observe({ runId, offset: first.length });
      expect(await chunksOf(observed)).toEqual(rest);
      expect(queries.count()).toBeGreaterThan(0);
    } finally {
      queries.stop();
    }
  });
});
