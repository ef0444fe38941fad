import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
// CommonJS: its `temporal` namespace is no named ESM export (see search-attributes.ts).
import proto from '@temporalio/proto';
import type { DecidedBy } from '../common/decision-types.js';
import type { BuildRef, MovedRun, RunMovedNote } from '../common/deployment-types.js';
import { TollgateError } from '../common/errors.js';
import { runMovedSignal } from '../common/messages.js';
import { requireAction, requireAgent, type Scope } from '../common/scope.js';
import { agentTaskQueue } from '../common/wire.js';
import { describeDeployment, describeVersion } from './deployment-versions.js';
import { toTollgateError } from './errors.js';
import { describeAgentRun } from './describe-agent-run.js';
import { replayOnBuild } from './replay-on-build.js';
import { runNotFound, ScopeGuard } from './scope-guard.js';
import { isOfBuild, pinnedBuildOf, recentPollers, type RecentPoller } from './worker-pollers.js';

/** How a run is moved, and who moves it. Every field is optional. */
export interface MoveRunOptions {
  /** The build to move to, in the deployment the run is pinned in. Default: its current build. */
  to?: string;
  /** Why, kept in the run's audit trail; at most 2000 characters. */
  reason?: string;
  /** Limits of the caller: a move changes which code runs a run, so it needs `admin`. */
  scope?: Scope;
  /** Who moves: recorded as `movedBy` in the run's audit trail and by Temporal. */
  identity?: DecidedBy | string;
  /** When given, the run must be a run of this agent, else `RUN_NOT_FOUND` (an agent's route). */
  agentId?: string;
}

/** What a move reads Temporal with. */
export interface MoveContext {
  client: Client;
  /** The task queue of this runtime: only its runs are moved. */
  taskQueue: string;
  /** A worker polled within this long counts as running (`decisions.workerSeenWithin`). */
  seenWithinMs: number;
}

const MAX_REASON = 2000;
const PINNED =
  proto.temporal.api.workflow.v1.VersioningOverride.PinnedOverrideBehavior
    .PINNED_OVERRIDE_BEHAVIOR_PINNED;

/**
 * Moves a pinned run that waits on a person to another build of its Worker Deployment
 * (docs/deploying.md "Moving a parked run to another build"), once that build's workers have
 * replayed its history with their code; records the move in the run's audit trail. Every refusal
 * leaves the run on its build, untouched.
 *
 * @throws TollgateError `FORBIDDEN` (no `admin`), `RUN_NOT_FOUND`, `RUN_FINISHED`,
 * `RUN_NOT_MOVABLE` (not pinned, busy, already there, the build lacks its agent),
 * `DEPLOYMENT_NOT_FOUND`, `WORKER_UNAVAILABLE` (no worker of the build polls or ran the check),
 * `REPLAY_FAILED` (the build's code cannot replay the run), `INVALID_OPTIONS`.
 */
export async function moveRun(
  context: MoveContext,
  runId: string,
  options: MoveRunOptions = {},
): Promise<MovedRun> {
  requireAction(options.scope, 'admin');
  if (options.agentId !== undefined) requireAgent(options.scope, options.agentId);
  if (options.reason !== undefined && options.reason.length > MAX_REASON) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `A move's reason is at most ${MAX_REASON} characters, not ${options.reason.length}.`,
    );
  }
  const { client } = context;
  const { run, agentId } = await openAgentRun(context, runId, options);
  const from = pinnedBuildOf(run);
  if (!from) {
    throw notMovable(
      `Run ${runId} is not pinned to a build: its worker runs unversioned or auto-upgrade, so it already takes the current build at its next step.`,
    );
  }
  refuseIfBusy(run);
  const to = await targetOf(client, run, from, options.to);
  await requireWorkersOf(context, run, agentId, from, to);
  await replayOnBuild(client, { runId, execution: run.runId, taskQueue: run.taskQueue, from }, to);
  await requireUnchanged(client, run, from);
  const movedBy =
    typeof options.identity === 'string' ? { id: options.identity } : options.identity;
  try {
    await client.workflowService.updateWorkflowExecutionOptions({
      namespace: client.options.namespace,
      workflowExecution: { workflowId: runId, runId: run.runId },
      workflowExecutionOptions: {
        versioningOverride: { pinned: { behavior: PINNED, version: to } },
      },
      updateMask: { paths: ['versioning_override'] },
      identity: movedBy?.id ?? client.options.identity ?? 'tollgate',
    });
    const note: RunMovedNote = {
      from: refOf(from),
      to: refOf(to),
      ...(movedBy ? { movedBy } : {}),
      ...(options.reason !== undefined ? { reason: options.reason } : {}),
    };
    await client.workflow.getHandle(runId).signal(runMovedSignal, note);
  } catch (error) {
    throw await toTollgateError(error, runId, client);
  }
  return { runId, from: refOf(from), to: refOf(to) };
}

/** The open agent run of this task queue that the caller may see; else a typed refusal. */
async function openAgentRun(context: MoveContext, runId: string, options: MoveRunOptions) {
  const { client, taskQueue } = context;
  const { run, agentId } = await describeAgentRun(client, runId);
  if (options.agentId !== undefined && agentId !== options.agentId) {
    throw runNotFound(runId, options.agentId);
  }
  if (options.scope) await new ScopeGuard(agentId, options.scope).run(client, runId);
  if (run.taskQueue !== taskQueue) {
    throw new TollgateError(
      'RUN_NOT_FOUND',
      `Run ${runId} runs on task queue '${run.taskQueue}', not on '${taskQueue}': move it with a Tollgate of that queue (temporal.taskQueue, --task-queue).`,
    );
  }
  if (run.status.name !== 'RUNNING') {
    throw new TollgateError(
      'RUN_FINISHED',
      `Run ${runId} has finished (${run.status.name.toLowerCase()}); only an open run can move.`,
    );
  }
  return { run, agentId };
}

/** A run moves between steps only: no activity, sub-agent run or workflow task under way. */
function refuseIfBusy(run: WorkflowExecutionDescription): void {
  const { pendingActivities, pendingChildren, pendingWorkflowTask } = run.raw;
  const busy = [
    pendingActivities?.length
      ? `${pendingActivities.length} model step(s) or tool call(s) running`
      : '',
    pendingChildren?.length ? `${pendingChildren.length} sub-agent run(s) open` : '',
    pendingWorkflowTask ? 'a workflow task under way' : '',
  ].filter(Boolean);
  if (busy.length === 0) return;
  throw notMovable(
    `Run ${run.workflowId} is busy (${busy.join(', ')}); a run moves only while it waits on a person. Try again when it waits (tollgate runs pending lists those).`,
  );
}

/** The build asked for, or the deployment's current one: known to Temporal, not the run's own. */
async function targetOf(
  client: Client,
  run: WorkflowExecutionDescription,
  from: WorkerDeploymentVersion,
  asked: string | undefined,
): Promise<WorkerDeploymentVersion> {
  const { deploymentName } = from;
  const current = asked
    ? undefined
    : (await describeDeployment(client, deploymentName))?.routingConfig?.currentDeploymentVersion
        ?.buildId;
  const buildId = asked ?? current;
  if (!buildId) {
    throw new TollgateError(
      'DEPLOYMENT_NOT_FOUND',
      `Deployment "${deploymentName}" has no current build to move run ${run.workflowId} to; name the build (to, --to).`,
    );
  }
  if (buildId === from.buildId) {
    throw notMovable(
      `Run ${run.workflowId} is already pinned to build ${buildId} of deployment ${deploymentName}${asked ? '' : ', the current build'}; there is nothing to move.`,
    );
  }
  // Unknown builds are refused here; whether the build serves the run's queue, by its pollers.
  await describeVersion(client, deploymentName, buildId);
  return { deploymentName, buildId };
}

/** Workers of `to` poll the run's queue, and some of them host the run's agent. */
async function requireWorkersOf(
  context: MoveContext,
  run: WorkflowExecutionDescription,
  agentId: string,
  from: WorkerDeploymentVersion,
  to: WorkerDeploymentVersion,
): Promise<void> {
  const { client, seenWithinMs } = context;
  const ofTarget = (pollers: Map<string, RecentPoller>) =>
    [...pollers.values()].some((poller) => isOfBuild(poller, to));
  if (!ofTarget(await recentPollers(client, run.taskQueue, seenWithinMs))) {
    throw new TollgateError(
      'WORKER_UNAVAILABLE',
      `No worker of build ${to.buildId} of deployment ${to.deploymentName} polls task queue '${run.taskQueue}', so nothing could check or run run ${run.workflowId} there; it stays on build ${from.buildId}. Start that build's workers, then move it again.`,
    );
  }
  // Every worker hosting the agent polls the agent's own queue; a fleet may split agents.
  const hosts = agentTaskQueue(run.taskQueue, agentId);
  if (!ofTarget(await recentPollers(client, hosts, seenWithinMs, 'activity'))) {
    throw notMovable(
      `Build ${to.buildId} of deployment ${to.deploymentName} does not host agent "${agentId}" (none of its workers polls the agent's queue), so it could not run the tools of run ${run.workflowId}; the run stays on build ${from.buildId}. Deploy a build with the agent, or let the run finish where it is.`,
    );
  }
}

/** The run did not move on while its replay was checked: the check holds for its history now. */
async function requireUnchanged(
  client: Client,
  checked: WorkflowExecutionDescription,
  from: WorkerDeploymentVersion,
): Promise<void> {
  const run = await client.workflow.getHandle(checked.workflowId).describe();
  const pinned = pinnedBuildOf(run);
  const same =
    run.runId === checked.runId &&
    run.status.name === 'RUNNING' &&
    run.historyLength === checked.historyLength &&
    pinned?.buildId === from.buildId &&
    pinned.deploymentName === from.deploymentName;
  if (same) return;
  throw notMovable(
    `Run ${checked.workflowId} went on while its replay was checked; it stays where it is. Move it again once it waits on a person.`,
  );
}

function refOf(version: WorkerDeploymentVersion): BuildRef {
  return { deployment: version.deploymentName, buildId: version.buildId };
}

function notMovable(message: string): TollgateError {
  return new TollgateError('RUN_NOT_MOVABLE', message);
}
