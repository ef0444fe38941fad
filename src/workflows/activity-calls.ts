import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { TollgateActivities } from '../activities/index.js';
import type { RequestPolicyActivities } from '../activities/request-policy.js';
import { FAILURE_TYPE_PREFIX } from '../common/errors.js';
import type { JsonValue } from '../common/json.js';
import type { ChannelNoticeInput } from '../common/channel-types.js';
import type { ReplayCheckAnswer, ReplayCheckInput } from '../common/deployment-types.js';
import type { FindGrantsInput, Grant } from '../common/grant-types.js';
import type { SharedSpendInput, SpentUsage } from '../common/shared-budget.js';
import type {
  AgentManifest,
  EvaluateGatesInput,
  ExtractResumeDataInput,
  ReminderInput,
  ThreadAppend,
  ThreadRef,
  GateVerdict,
  ToolNaming,
} from '../common/run-types.js';
import type {
  CompactConversationInput,
  CompactedConversation,
} from '../common/compaction-types.js';
import { onAgentHost, type AgentRoute } from './agent-routing.js';

/** User errors (unknown agent, bad configuration) fail at once; retrying cannot fix them. */
export const NON_RETRYABLE = [
  FAILURE_TYPE_PREFIX + 'AGENT_NOT_FOUND',
  FAILURE_TYPE_PREFIX + 'INVALID_AGENT',
  FAILURE_TYPE_PREFIX + 'INVALID_TOOL',
];

export const CONTROL: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: NON_RETRYABLE },
};

/** A single model call outside the step loop (resume-data extraction). */
const MODEL_CALL: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: {
    maximumAttempts: 3,
    initialInterval: '2 seconds',
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
};

export const control = proxyActivities<TollgateActivities>(CONTROL);

/**
 * The options of an agent-specific activity: on the agent's own task queue where the run routes
 * its work there (`state.agentQueue`, patch `tollgate-agent-queues`), else on the run's.
 */
export function onQueue(options: ActivityOptions, queue: string | undefined): ActivityOptions {
  return queue === undefined ? options : { ...options, taskQueue: queue };
}

/** Tools named by id: the activity's input as runs started before keys scheduled it. */
export function describeAgent(
  agentId: string,
  toolNaming: ToolNaming,
  route: AgentRoute,
): Promise<AgentManifest> {
  return onAgentHost(route, (queue) =>
    control.describeAgent.executeWithOptions(
      onQueue({ ...CONTROL, summary: `describe agent ${agentId}` }, queue),
      describeArgs(agentId, toolNaming),
    ),
  );
}

/** The describe activity's arguments, remote or local: tools by id for runs started before keys. */
export function describeArgs(
  agentId: string,
  toolNaming: ToolNaming,
): [string] | [string, { toolNaming: ToolNaming }] {
  return toolNaming === 'key' ? [agentId, { toolNaming }] : [agentId];
}

/** The live grants that may cover a step's gated calls (docs/grants.md). */
export function findGrants(input: FindGrantsInput): Promise<Grant[]> {
  return control.findGrants.executeWithOptions(
    {
      startToCloseTimeout: '10 seconds',
      retry: { maximumAttempts: 3 },
      summary: `find grants for ${input.toolNames.join(', ')}`,
    },
    [input],
  );
}

/**
 * A run's shared budgets (docs/budgets.md "Shared budgets"): reads their counters before a step,
 * or commits the step's usage after it. Retried for a while: a run that cannot count waits rather
 * than spend unseen, and fails after the retries rather than run past a limit it cannot read.
 */
export function sharedSpend(input: SharedSpendInput): Promise<SpentUsage[]> {
  const options: ActivityOptions = {
    startToCloseTimeout: '30 seconds',
    retry: {
      maximumAttempts: 10,
      initialInterval: '1 second',
      nonRetryableErrorTypes: NON_RETRYABLE,
    },
  };
  const what = input.counters.map(({ ref }) => `${ref.per} ${ref.key || '(none)'}`).join(', ');
  return input.commit
    ? control.commitSharedSpend.executeWithOptions(
        { ...options, summary: `count step ${input.commit.step} in shared budgets: ${what}` },
        [input],
      )
    : control.readSharedSpend.executeWithOptions(
        { ...options, summary: `read shared budgets: ${what}` },
        [input],
      );
}

/** A compaction hook may call a model: it gets a model call's time, and heartbeats. */
const COMPACTION: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: {
    maximumAttempts: 3,
    initialInterval: '2 seconds',
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
};

/**
 * Runs the agent's compaction hook. Always an ordinary activity, even for local-mode runs: a local
 * activity's result may reach the workflow a task later than on replay, and the continue-as-new
 * that follows reads the history's length, which must be the same on replay.
 */
export function compactConversation(
  input: CompactConversationInput,
  queue: string | undefined,
): Promise<CompactedConversation> {
  return control.compactConversation.executeWithOptions(
    onQueue({ ...COMPACTION, summary: `compact conversation after step ${input.step}` }, queue),
    [input],
  );
}

export function evaluateToolPolicies(
  input: EvaluateGatesInput,
  queue: string | undefined,
): Promise<GateVerdict[]> {
  return control.evaluateToolPolicies.executeWithOptions(
    onQueue({ ...CONTROL, summary: `approval policy (${input.source})` }, queue),
    [input],
  );
}

/**
 * A request's policy function lives in the process that started the run, on its own task queue.
 * If that process is gone, the activity times out and every call is gated (fail-safe).
 */
export function evaluateRequestPolicy(
  taskQueue: string,
  input: EvaluateGatesInput,
): Promise<GateVerdict[]> {
  const options: ActivityOptions = {
    taskQueue,
    scheduleToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 2 },
    summary: 'approval policy (request)',
  };
  return proxyActivities<RequestPolicyActivities>(options).evaluateRequestPolicy.executeWithOptions(
    options,
    [input],
  );
}

export function loadThread(thread: ThreadRef, last: number): Promise<JsonValue[]> {
  return control.loadThread.executeWithOptions(
    { ...CONTROL, summary: `memory: read thread ${thread.threadId}` },
    [{ ...thread, last }],
  );
}

export function appendThread(thread: ThreadRef, append: ThreadAppend): Promise<void> {
  return control.appendThread.executeWithOptions(
    { ...CONTROL, summary: `memory: append to thread ${thread.threadId}` },
    [{ ...thread, ...append }],
  );
}

export function extractResumeData(
  input: ExtractResumeDataInput,
  queue: string | undefined,
): Promise<JsonValue | null> {
  return control.extractResumeData.executeWithOptions(
    onQueue({ ...MODEL_CALL, summary: `extract resume data for ${input.toolName}` }, queue),
    [input],
  );
}

/**
 * The approval wait awaits its reminder: on the agent's queue, a reminder that no host takes
 * within 30 s gives up (it is logged), so the call's deadline still fires while no host runs.
 */
export function sendReminder(input: ReminderInput, queue: string | undefined): Promise<void> {
  const options = { ...CONTROL, summary: `reminder: ${input.toolName} waits` };
  return control.sendReminder.executeWithOptions(
    queue === undefined
      ? options
      : { ...options, taskQueue: queue, scheduleToStartTimeout: '30 seconds' },
    [input],
  );
}

/**
 * A channel notice is retried for about an hour (a webhook that is down for a moment, a worker
 * restart): its schedule is in the run's history, so it survives restarts; a webhook that
 * refuses it (4xx) fails it at once.
 */
const CHANNEL_NOTICE: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: [
      ...NON_RETRYABLE,
      FAILURE_TYPE_PREFIX + 'CHANNEL_DELIVERY_FAILED',
      FAILURE_TYPE_PREFIX + 'INVALID_OPTIONS',
    ],
  },
};

/**
 * On the agent's queue: the host that described the agent's channels holds their webhooks. The
 * answer (where a Slack message is) is only kept in history for later notices; the run ignores it.
 */
export function sendChannelNotice(
  input: ChannelNoticeInput,
  queue: string | undefined,
): Promise<unknown> {
  return control.sendChannelNotice.executeWithOptions(
    onQueue(
      { ...CHANNEL_NOTICE, summary: `${input.kind} to ${input.target}: ${input.toolName}` },
      queue,
    ),
    [input],
  );
}

/** The replay check's one activity, on the check's queue: the client waits a minute at most. */
export function checkReplay(input: ReplayCheckInput): Promise<ReplayCheckAnswer> {
  return control.checkReplay.executeWithOptions(
    {
      startToCloseTimeout: '1 minute',
      retry: { maximumAttempts: 2 },
      summary: `replay ${input.runId}`,
    },
    [input],
  );
}
