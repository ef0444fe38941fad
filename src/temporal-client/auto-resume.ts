import type { Client } from '@temporalio/client';
import { isTollgateError } from '../common/errors.js';
import type { JsonValue } from '../common/json.js';
import { autoResumeUpdate } from '../common/messages.js';
import type { AppliedDecision, AutoResumeInput } from '../common/run-types.js';
import type { LiveDeltaTransport } from '../live/live-transport.js';
import { toTollgateError } from './errors.js';
import { sendUpdate } from './send-update.js';
import { listSuspendedRuns } from './list-suspended-runs.js';
import type { RunOptions } from './run-options.js';
import { LiveSubscription } from './live-subscription.js';
import type { WorkerAvailability } from './worker-availability.js';
import { workerUnavailable } from './worker-pollers.js';

/**
 * With memory, a new user message may answer the thread's suspended call instead of starting a
 * run. Returns the resumed run, or undefined when the message should start a new run: no
 * suspended call, auto-resume off, or no usable resume data in the message.
 */
export async function autoResume(
  agentId: string,
  client: Client,
  context: { bus: LiveDeltaTransport; workers: WorkerAvailability },
  messages: JsonValue[],
  options: RunOptions,
): Promise<{ runId: string; applied: AppliedDecision; live: LiveSubscription } | undefined> {
  const { memory, autoResumeSuspendedTools: requested } = options;
  if (!memory || requested === false) return undefined;
  const message = lastUserText(messages);
  if (message === undefined) return undefined;
  const { runs } = await listSuspendedRuns(client, agentId, {
    threadId: memory.thread,
    resourceId: memory.resource,
    perPage: 100,
  });
  // Only calls parked by suspend(): an approval is never granted by a message.
  const target = runs
    .flatMap((run) =>
      run.toolCalls.filter((call) => !call.requiresApproval).map((call) => ({ run, call })),
    )
    .sort((a, b) => b.run.suspendedAt.localeCompare(a.run.suspendedAt))[0];
  if (!target) return undefined;
  const input: AutoResumeInput = {
    toolCallId: target.call.toolCallId,
    message,
    ...(requested !== undefined ? { requested } : {}),
  };
  // The model reads the message on a host of the agent: without one the update would only wait.
  const found = await context.workers.ofRun(client, target.run.runId, undefined, agentId);
  if (found?.pollers === 0) {
    throw workerUnavailable(found, target.run.runId, 'the message that would resume it');
  }
  const live = new LiveSubscription(context.bus, target.run.runId);
  try {
    const applied = await sendUpdate(client, target.run.runId, autoResumeUpdate, [input]);
    return { runId: target.run.runId, applied, live };
  } catch (error) {
    live.close();
    const refused = await toTollgateError(error, target.run.runId);
    // The call was taken meanwhile, auto-resume is off, or the message held no resume data.
    if (isTollgateError(refused)) return undefined;
    throw refused;
  }
}

function lastUserText(messages: JsonValue[]): string | undefined {
  const last = messages.at(-1) as { role?: unknown; content?: unknown } | undefined;
  if (last?.role !== 'user') return undefined;
  if (typeof last.content === 'string') return last.content;
  if (!Array.isArray(last.content)) return undefined;
  const texts = last.content.flatMap((part) =>
    (part as { type?: unknown }).type === 'text' ? [String((part as { text?: unknown }).text)] : [],
  );
  return texts.length > 0 ? texts.join('\n') : undefined;
}
