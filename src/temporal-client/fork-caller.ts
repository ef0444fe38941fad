import type { Client } from '@temporalio/client';
import type { ForkListing, ForkRequest } from '../common/fork-types.js';
import type { AgentClientContext } from './agent-client-context.js';
import { callFailure } from './call-failure.js';
import { checkForkRequest } from './fork-request.js';
import { forkRun, listForks } from './fork-run.js';
import type { LiveSubscription } from './live-subscription.js';
import { checkId } from './run-options.js';
import type { ScopeGuard } from './scope-guard.js';

/**
 * `AgentClient.fork` for a caller: it may start runs of the agent and read the original (else
 * `FORBIDDEN`, or `RUN_NOT_FOUND` for a run it may not see), and a worker hosts the agent
 * (`AGENT_NOT_FOUND`), all checked before the original is read. The fork's requester is the caller.
 */
export async function forkFor(
  context: AgentClientContext,
  guard: ScopeGuard,
  request: ForkRequest,
): Promise<{ client: Client; runId: string; live: LiveSubscription }> {
  const checked = checkForkRequest(request);
  guard.request('start');
  const client = await seenRun(context, guard, checked.runId);
  await context.requireAgent(guard.agentId);
  const { requester } = guard.startRights({});
  const by = guard.identity;
  const who = { ...(requester ? { requester } : {}), ...(by ? { forkedBy: by } : {}) };
  const started = await forkRun(context, guard.agentId, client, checked, who);
  return { client, ...started };
}

/** The forks of `runId` the caller may see (each judged like any run it reads). */
export async function forksSeenBy(
  context: AgentClientContext,
  guard: ScopeGuard,
  runId: string,
): Promise<ForkListing[]> {
  checkId(runId, 'runId');
  const client = await seenRun(context, guard, runId);
  let forks: ForkListing[];
  try {
    forks = await listForks(client, runId);
  } catch (error) {
    throw await callFailure(context, error, runId);
  }
  const seen = await Promise.all(
    forks.map((fork) =>
      guard.run(client, fork.runId, context.runs).then(
        () => true,
        () => false,
      ),
    ),
  );
  return forks.filter((_, index) => seen[index]);
}

/** The client, once `runId` is a run of the guard's agent the caller may read. */
async function seenRun(
  context: AgentClientContext,
  guard: ScopeGuard,
  runId: string,
): Promise<Client> {
  guard.request('read');
  const client = await context.client();
  try {
    await guard.run(client, runId, context.runs);
  } catch (error) {
    throw await callFailure(context, error, runId);
  }
  return client;
}
