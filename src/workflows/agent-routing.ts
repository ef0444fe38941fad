import { ActivityFailure, ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import { TollgateError } from '../common/errors.js';
import type { JsonValue } from '../common/json.js';
import { agentTaskQueue } from '../common/wire.js';
import { isPatched } from './patch-markers.js';
import { AGENT_QUEUES_PATCH, HERE_FIRST_PATCH } from './patch-ids.js';

/** Where a run's agent work goes; `hereFirst` is turned off by the first fallback. */
export interface AgentRoute {
  /** The agent's own task queue (`agentQueueOfRun`); undefined: the run's own. */
  agentQueue: string | undefined;
  /** Try the run's own queue first (patch `HERE_FIRST_PATCH`). */
  hereFirst: boolean;
}

/**
 * The task queue of this run's agent-specific activities, or undefined for the run's own.
 * Decided once, before the run's first command, and kept in the run's state: a patch asked again
 * later could answer differently for a run that started before it.
 */
export function agentQueueOfRun(agentId: string): string | undefined {
  return isPatched(AGENT_QUEUES_PATCH)
    ? agentTaskQueue(workflowInfo().taskQueue, agentId)
    : undefined;
}

/** Whether a routed run tries its own queue first; decided with `agentQueueOfRun`, at start. */
export function hereFirstOfRun(agentQueue: string | undefined): boolean {
  return agentQueue !== undefined && isPatched(HERE_FIRST_PATCH);
}

/**
 * Schedules agent work by the run's route. With `hereFirst`, on the run's own queue, and on the
 * agent's queue if the worker that took it lacks the agent: `carried` is then what that attempt
 * was handed of the call's earlier attempts (a tool's heartbeat details), for the new activity to
 * start from. After one fallback the run sends its agent work straight to the agent's queue: its
 * workflow tasks evidently reach workers without the agent.
 */
export async function onAgentHost<T>(
  route: AgentRoute,
  schedule: (queue: string | undefined, carried?: JsonValue) => Promise<T>,
): Promise<T> {
  if (!route.hereFirst || route.agentQueue === undefined) return schedule(route.agentQueue);
  try {
    return await schedule(undefined);
  } catch (error) {
    if (!agentNotHostedHere(error)) throw error;
    route.hereFirst = false;
    return schedule(route.agentQueue, carriedDetails(error));
  }
}

/** An attempt refused by a worker that does not host the run's agent. */
export function agentNotHostedHere(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof ApplicationFailure &&
    TollgateError.codeOfFailureType(error.cause.type) === 'AGENT_NOT_FOUND'
  );
}

function carriedDetails(error: unknown): JsonValue | undefined {
  const cause = (error as ActivityFailure).cause as ApplicationFailure;
  const first: unknown = cause.details?.[0];
  return first === undefined || first === null ? undefined : (first as JsonValue);
}
