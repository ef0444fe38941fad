/**
 * A build that drops an agent strands the agent's open runs that follow the current build
 * (auto-upgrade, or unversioned during a move to deployments): their next step goes to the agent's
 * queue on the new build, where no worker hosts it. `setCurrent` and `ramp` refuse such a switch
 * unless asked to (docs/deploying.md "Releases that add or remove agents").
 */
import type { Client } from '@temporalio/client';
import { isTollgateError, TollgateError } from '../common/errors.js';
import { AGENT_RUN_WORKFLOW, SEARCH_ATTRIBUTES, agentTaskQueue } from '../common/wire.js';
import { describeDeployment, describeVersion } from './deployment-versions.js';
import { quote } from './list-suspended-runs.js';
import { isOfBuild, recentPollers } from './worker-pollers.js';

/** An agent the current build hosts and the proposed one does not, with its runs that would follow. */
export interface DroppedAgent {
  agentId: string;
  /** Open runs of the agent not pinned to a build: they would move to the proposed one. */
  followingRuns: number;
}

/**
 * Throws `BUILD_LACKS_AGENT` when `buildId` does not host an agent that the deployment's current
 * build hosts and that still has runs following the current build.
 */
export async function refuseStrandingSwitch(
  client: Client,
  options: { name: string; buildId: string; taskQueue: string; seenWithinMs: number },
): Promise<void> {
  const dropped = (await droppedAgents(client, options)).filter((agent) => agent.followingRuns > 0);
  if (dropped.length === 0) return;
  const list = dropped.map((agent) => `"${agent.agentId}" (${agent.followingRuns} run(s))`);
  throw new TollgateError(
    'BUILD_LACKS_AGENT',
    `Build ${options.buildId} of deployment ${options.name} does not host ${list.join(', ')}, whose open runs follow the current build and would wait for a host there. Keep the agent in the new build, let those runs finish, or switch anyway (allowDroppedAgents / --allow-dropped-agents).`,
  );
}

async function droppedAgents(
  client: Client,
  options: { name: string; buildId: string; taskQueue: string; seenWithinMs: number },
): Promise<DroppedAgent[]> {
  const { name, buildId, taskQueue } = options;
  // A deployment Temporal does not know yet has no current build to drop agents from.
  const info = await describeDeployment(client, name).catch((error: unknown) => {
    if (isTollgateError(error, 'DEPLOYMENT_NOT_FOUND')) return undefined;
    throw error;
  });
  const current = info?.routingConfig?.currentDeploymentVersion?.buildId;
  if (!current || current === buildId) return [];
  const prefix = agentTaskQueue(taskQueue, '');
  const agentsOf = async (build: string) =>
    ((await describeVersion(client, name, build))?.taskQueueInfos ?? [])
      .map((queue) => queue.name ?? '')
      .filter((queue) => queue.startsWith(prefix))
      .map((queue) => queue.slice(prefix.length));
  const proposed = new Set(await agentsOf(buildId));
  const missing = (await agentsOf(current)).filter((agentId) => !proposed.has(agentId));
  const dropped: DroppedAgent[] = [];
  for (const agentId of missing) {
    // Temporal lists a build's queues a moment after its first poll: its pollers count too.
    const queue = agentTaskQueue(taskQueue, agentId);
    const pollers = await recentPollers(client, queue, options.seenWithinMs, 'activity');
    const build = { deploymentName: name, buildId };
    const hosted = [...pollers.values()].some((poller) => isOfBuild(poller, build));
    if (hosted) continue;
    const runs = `WorkflowType = ${quote(AGENT_RUN_WORKFLOW)} AND TaskQueue = ${quote(taskQueue)} AND ExecutionStatus = 'Running' AND ${SEARCH_ATTRIBUTES.agentId.name} = ${quote(agentId)}`;
    const [all, pinned] = await Promise.all([
      client.workflow.count(runs),
      client.workflow.count(`${runs} AND TemporalWorkflowVersioningBehavior = 'Pinned'`),
    ]);
    dropped.push({ agentId, followingRuns: all.count - pinned.count });
  }
  return dropped;
}
