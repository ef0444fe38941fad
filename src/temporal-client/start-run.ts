import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { TollgateError } from '../common/errors.js';
import type { JsonValue } from '../common/json.js';
import type { RequestPolicy, RunInput } from '../common/run-types.js';
import { SA_KEYS } from '../common/search-attribute-keys.js';
import { AGENT_RUN_WORKFLOW, ONE_MARKER_MEMO } from '../common/wire.js';
import { toRules } from '../definitions/approval-policy.js';
import { DELEGATION_PREFIX } from '../common/tool-naming.js';
import { unknownActiveTool } from '../common/active-tools.js';
import type { AgentClientContext } from './agent-client-context.js';
import { toTollgateError } from './errors.js';
import type { RunOptions } from './run-options.js';
import { LiveSubscription } from './live-subscription.js';
import { followsByUpdate, startFollowed, type Follower } from './follow-update.js';
import type { LogReading } from './finish-points.js';

/**
 * Starts a new run of `agentId` with the checked `initial` messages, subscribed to its live
 * chunks from the start. A taken `runId` is `INVALID_OPTIONS`. `launch.rights`: what
 * `requestRights` allowed the request; `launch.reading`: how the caller reads the run, which
 * decides whether it starts with a follower (`followsByUpdate`).
 */
export async function startRun(
  context: AgentClientContext,
  agentId: string,
  client: Client,
  initial: JsonValue[],
  opts: RunOptions,
  launch: { rights: Pick<RunInput, 'requester' | 'approvalOverride'>; reading: LogReading },
): Promise<Launched> {
  const { rights } = launch;
  const runId = opts.runId ?? randomUUID();
  const input: RunInput = {
    agentId,
    messages: initial,
    requestPolicy: await requestPolicy(context, runId, opts.requireToolApproval),
    requestContext: opts.requestContext ?? {},
    ...(opts.maxSteps !== undefined ? { maxSteps: opts.maxSteps } : {}),
    ...(opts.memory ? { threadId: opts.memory.thread, resourceId: opts.memory.resource } : {}),
    ...(opts.approval ? { approvalRules: toRules(opts.approval, 'approval')! } : {}),
    ...(opts.activeTools ? { activeTools: [...new Set(opts.activeTools)] } : {}),
    ...(opts.budget ? { budget: opts.budget } : {}),
    ...describeChoice(context, agentId),
    ...rights,
  };
  const summary = `${agentId}: ${summaryOf(initial)}`;
  const followed = followsByUpdate(context, launch.reading);
  return launchRun(context, client, runId, input, { summary }, followed);
}

/**
 * How a new run describes its agent. Locally when this process hosts it and it does local work.
 * First on the worker that takes its first workflow task when runs started here record one patch
 * marker: the patches such a run decides before that describe are then the one marker's, and cost
 * no marker each (`patchesOfLocalWork`). Otherwise by an activity, a workflow task later.
 */
function describeChoice(
  context: AgentClientContext,
  agentId: string,
): Pick<RunInput, 'describeLocally' | 'describeHere'> {
  if (context.describesLocally?.(agentId)) return { describeLocally: true };
  return context.oneMarker ? { describeHere: true } : {};
}

/** A started run; `follower`: the answer of the follower it was started with, if any. */
export interface Launched {
  runId: string;
  live: LiveSubscription;
  follower?: Follower;
}

/** What a start adds to the run's description in Temporal beyond its input. */
export interface LaunchExtras {
  summary: string;
  searchAttributes?: SearchAttributePair[];
  memo?: Record<string, unknown>;
}

/**
 * Starts the workflow of a checked `input` under `runId`, subscribed to its live chunks from the
 * start (a new run, or a fork), with a follower at offset 0 when `followed`. A taken `runId` is
 * `INVALID_OPTIONS`.
 */
export async function launchRun(
  context: AgentClientContext,
  client: Client,
  runId: string,
  input: RunInput,
  extras: LaunchExtras,
  followed = false,
): Promise<Launched> {
  const { agentId, threadId, resourceId } = input;
  const live = new LiveSubscription(context.bus, runId);
  let follower: Follower | undefined;
  try {
    const options = {
      workflowId: runId,
      taskQueue: context.taskQueue,
      args: [input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: extras.summary,
      typedSearchAttributes: [
        { key: SA_KEYS.agentId, value: agentId },
        { key: SA_KEYS.status, value: 'running' },
        ...(threadId !== undefined ? [{ key: SA_KEYS.threadId, value: threadId }] : []),
        ...(resourceId !== undefined ? [{ key: SA_KEYS.resourceId, value: resourceId }] : []),
        ...(extras.searchAttributes ?? []),
      ],
      ...(extras.memo || context.oneMarker
        ? { memo: { ...extras.memo, ...(context.oneMarker ? ONE_MARKER_MEMO : {}) } }
        : {}),
    };
    if (followed) follower = (await startFollowed(client, options, context.lifetime)).answer;
    else await client.workflow.start(AGENT_RUN_WORKFLOW, options);
  } catch (error) {
    live.close();
    context.releasePolicy(runId);
    if (error instanceof Error && error.name === 'WorkflowExecutionAlreadyStartedError') {
      throw new TollgateError(
        'INVALID_OPTIONS',
        `A run with id "${runId}" already exists; choose another runId.`,
        { cause: error },
      );
    }
    throw await toTollgateError(error, runId);
  }
  // Decisions on the run need not describe it to know whose it is (`RunFactsCache`).
  context.runs.set(runId, {
    agentId,
    taskQueue: context.taskQueue,
    threadId,
    resourceId,
    top: { resourceId },
  });
  return { runId, live, ...(follower ? { follower } : {}) };
}

/**
 * Refuses `activeTools` naming a tool the agent's directory entry does not list
 * (`INVALID_OPTIONS`, naming it and the tools there are), before anything starts. Delegations
 * of entries published before they were listed are left to the run, which checks every name.
 */
export async function checkActiveTools(
  context: AgentClientContext,
  agentId: string,
  activeTools: readonly string[],
): Promise<void> {
  const agent = await context.describeAgent(agentId);
  const known = [...agent.tools, ...(agent.delegations ?? [])];
  const checked = agent.delegations
    ? activeTools
    : activeTools.filter((name) => !name.startsWith(DELEGATION_PREFIX));
  const problem = unknownActiveTool(agentId, checked, known);
  if (problem) throw new TollgateError('INVALID_OPTIONS', problem);
}

async function requestPolicy(
  context: AgentClientContext,
  runId: string,
  policy: RunOptions['requireToolApproval'],
): Promise<RequestPolicy> {
  if (policy === undefined) return { kind: 'agent-default' };
  if (typeof policy === 'boolean') return { kind: policy ? 'always' : 'never' };
  if (typeof policy === 'string') return { kind: 'named', name: policy };
  return { kind: 'function', taskQueue: await context.holdPolicy(runId, policy) };
}

function summaryOf(messages: JsonValue[]): string {
  const last = messages.at(-1) as { content?: unknown } | undefined;
  const text =
    typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
