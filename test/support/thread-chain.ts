import { expect } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { eventually } from './harness.js';

/**
 * Waits until visibility shows a workflow id's chain of executions continued as new at least once,
 * with only its latest execution open: none terminated, failed or timed out.
 */
export async function expectUnbrokenChain(client: Client, workflowId: string): Promise<void> {
  await eventually(async () => {
    const statuses: string[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowId = "${workflowId}"` }))
      statuses.push(execution.status.name);
    expect(statuses).toContain('CONTINUED_AS_NEW');
    expect(statuses.filter((status) => status !== 'CONTINUED_AS_NEW')).toEqual(['RUNNING']);
  });
}
