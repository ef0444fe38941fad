import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { JsonValue } from '../common/json.js';
import type { ThreadAppend, ThreadInput, ThreadRef } from '../common/run-types.js';
import { THREAD_MESSAGES, THREAD_WORKFLOW, threadWorkflowId } from '../common/wire.js';

/** How threads are kept: when they continue as new and how many messages they hold. */
export interface ThreadSettings {
  /** Events after which a thread continues as new. Default 2000. */
  historyLimit: number;
  /** Messages a thread keeps; older ones are dropped. Default 1000. */
  maxMessages: number;
}

export const DEFAULT_THREAD_SETTINGS: ThreadSettings = { historyLimit: 2000, maxMessages: 1000 };

/** Memory activities: read a thread's last messages, append a completed run's messages. */
export function createMemoryActivities(client: Client, settings: ThreadSettings) {
  return {
    async loadThread(ref: ThreadRef & { last: number }): Promise<JsonValue[]> {
      const id = threadWorkflowId(ref.agentId, ref.resourceId, ref.threadId);
      try {
        return await client.workflow
          .getHandle(id)
          .query<JsonValue[], [{ last: number }]>(THREAD_MESSAGES.messages, { last: ref.last });
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return [];
        throw error;
      }
    },

    /** Starts the thread on first use (signal-with-start): no other store is involved. */
    async appendThread(ref: ThreadRef & ThreadAppend): Promise<void> {
      const input: ThreadInput = {
        agentId: ref.agentId,
        threadId: ref.threadId,
        resourceId: ref.resourceId,
        messages: [],
        appliedRuns: [],
        ...settings,
      };
      await client.workflow.signalWithStart(THREAD_WORKFLOW, {
        workflowId: threadWorkflowId(ref.agentId, ref.resourceId, ref.threadId),
        taskQueue: Context.current().info.taskQueue,
        args: [input],
        signal: THREAD_MESSAGES.append,
        signalArgs: [{ runId: ref.runId, messages: ref.messages }],
        staticSummary: `memory of ${ref.agentId} thread ${ref.threadId} (${ref.resourceId})`,
      });
    },
  };
}
