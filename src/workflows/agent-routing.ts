import { patched, workflowInfo } from '@temporalio/workflow';
import { agentTaskQueue } from '../common/wire.js';

/**
 * Runs that record this patch send their agent's activities (describe, model steps, tool calls,
 * policies, reminders, compaction, resume-data extraction) to the agent's own task queue, which
 * only workers hosting the agent poll. Runs started before it keep using the run's task queue.
 */
export const AGENT_QUEUES_PATCH = 'tollgate-agent-queues';

/**
 * The task queue of this run's agent-specific activities, or undefined for the run's own.
 * Decided once, before the run's first command, and kept in the run's state: a patch asked again
 * later could answer differently for a run that started before it.
 */
export function agentQueueOfRun(agentId: string): string | undefined {
  return patched(AGENT_QUEUES_PATCH)
    ? agentTaskQueue(workflowInfo().taskQueue, agentId)
    : undefined;
}
