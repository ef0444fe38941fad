import { Context, log } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { TollgateError } from '../common/errors.js';
import type { JsonValue } from '../common/json.js';
import type { ThreadAppend, ThreadInput, ThreadRef } from '../common/run-types.js';
import {
  DEFAULT_THREAD_MAX_BYTES,
  jsonByteLength,
  retainedMessages,
} from '../common/thread-retention.js';
import { threadAppendSignal, threadMessagesQuery } from '../common/messages.js';
import { THREAD_WORKFLOW, threadWorkflowId } from '../common/wire.js';
import { classified } from './failures.js';
import { legacyThreadId } from './legacy-thread.js';

/** How threads are kept: when they continue as new and how much they hold. */
export interface ThreadSettings {
  /** Events after which a thread continues as new. Default 2000. */
  historyLimit: number;
  /** Messages a thread keeps; older ones are dropped. Default 1000. */
  maxMessages: number;
  /**
   * Bytes of messages a thread keeps (UTF-8 JSON); older ones are dropped, and a run that adds
   * more than this on its own fails with `THREAD_APPEND_TOO_LARGE`. Must stay below the server's
   * payload limit (`limit.blobSize.error`, 2 MiB by default). Default 1 MiB.
   */
  maxBytes: number;
}

export const DEFAULT_THREAD_SETTINGS: ThreadSettings = {
  historyLimit: 2000,
  maxMessages: 1000,
  maxBytes: DEFAULT_THREAD_MAX_BYTES,
};

/** Memory activities: read a thread's last messages, append a completed run's messages. */
export function createMemoryActivities(client: Client, settings: ThreadSettings) {
  checkThreadSettings(settings);
  /** The thread's last messages, or `undefined` if no thread has this id. */
  async function messagesOf(id: string, last: number): Promise<JsonValue[] | undefined> {
    try {
      return await client.workflow.getHandle(id).query(threadMessagesQuery, { last });
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }

  async function exists(id: string): Promise<boolean> {
    try {
      await client.workflow.getHandle(id).describe();
      return true;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }

  /** What an older id of this thread holds, if it can only be this thread's. */
  async function legacyMessages(ref: ThreadRef, last: number): Promise<JsonValue[]> {
    const legacy = legacyThreadId(ref);
    if (!legacy) return [];
    if (!legacy.ambiguous) return (await messagesOf(legacy.id, last)) ?? [];
    if (await exists(legacy.id)) {
      log.warn('Not reading a thread kept under an ambiguous id from before ids were encoded', {
        legacyWorkflowId: legacy.id,
        workflowId: threadWorkflowId(ref.agentId, ref.resourceId, ref.threadId),
      });
    }
    return [];
  }

  return {
    loadThread: (ref: ThreadRef & { last: number }): Promise<JsonValue[]> =>
      classified(async () => {
        const id = threadWorkflowId(ref.agentId, ref.resourceId, ref.threadId);
        return (await messagesOf(id, ref.last)) ?? (await legacyMessages(ref, ref.last));
      }),

    /** Starts the thread on first use (signal-with-start): no other store is involved. */
    appendThread: (ref: ThreadRef & ThreadAppend): Promise<void> =>
      classified(async () => {
        const bytes = jsonByteLength(ref.messages);
        if (bytes > settings.maxBytes) {
          throw new TollgateError(
            'THREAD_APPEND_TOO_LARGE',
            `Run ${ref.runId} adds ${bytes} bytes of messages to thread ${ref.threadId}, more than the ${settings.maxBytes} a thread keeps: send shorter messages or raise threads.maxBytes (below the server's payload limit).`,
          );
        }
        const workflowId = threadWorkflowId(ref.agentId, ref.resourceId, ref.threadId);
        // A thread kept under its old id is carried over when its new id is first written.
        const carried =
          legacyThreadId(ref) && !(await exists(workflowId))
            ? await legacyMessages(ref, settings.maxMessages)
            : [];
        const input: ThreadInput = {
          agentId: ref.agentId,
          threadId: ref.threadId,
          resourceId: ref.resourceId,
          // Room for this append too, so nothing carried is dropped again at once.
          messages: retainedMessages(carried, { ...settings, maxBytes: settings.maxBytes - bytes }),
          appliedRuns: [],
          ...settings,
        };
        await client.workflow.signalWithStart(THREAD_WORKFLOW, {
          workflowId,
          taskQueue: Context.current().info.taskQueue,
          args: [input],
          signal: threadAppendSignal,
          signalArgs: [{ runId: ref.runId, messages: ref.messages }],
          staticSummary: `memory of ${ref.agentId} thread ${ref.threadId} (${ref.resourceId})`,
        });
      }),
  };
}

function checkThreadSettings(settings: ThreadSettings): void {
  for (const [name, value] of Object.entries(settings)) {
    if (!Number.isInteger(value) || (value as number) < 1) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        `threads.${name} is ${String(value)}: pass a positive whole number.`,
      );
    }
  }
}
