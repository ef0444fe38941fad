/**
 * What the run-steering commands share: a Tollgate from the global flags, the agent a run belongs
 * to (read from the run itself) and who is deciding.
 */
import { hostname, userInfo } from 'node:os';
import { describeAgentRun } from '../temporal-client/describe-agent-run.js';
import type { DecidedBy } from '../common/run-types.js';
import type { Agent } from '../definitions/agent.js';
import { Tollgate } from '../runtime.js';
import type { WorkerSettings } from '../worker-settings.js';
import type { GlobalOptions } from './command-input.js';

/** A Tollgate on the flags' address, namespace and task queue; hosts `agents` when given. */
export function openTollgate(
  global: GlobalOptions,
  agents?: Record<string, Agent>,
  worker?: WorkerSettings,
): Tollgate {
  return new Tollgate({
    ...(agents ? { agents } : {}),
    ...(worker ? { worker } : {}),
    temporal: {
      ...(global.address !== undefined ? { address: global.address } : {}),
      ...(global.namespace !== undefined ? { namespace: global.namespace } : {}),
      ...(global.taskQueue !== undefined ? { taskQueue: global.taskQueue } : {}),
    },
  });
}

/**
 * The id of the agent whose run `runId` is, from the run's `TollgateAgentId` search attribute.
 *
 * @throws TollgateError `RUN_NOT_FOUND` when no such workflow exists or it is not an agent run.
 */
export async function agentIdOfRun(tollgate: Tollgate, runId: string): Promise<string> {
  return (await describeAgentRun(await tollgate.client(), runId)).agentId;
}

/** `--as` and `--roles`, defaulting to `$USER@hostname` with the role `cli`. */
export function decidedByFrom(as: string | undefined, roles: string | undefined): DecidedBy {
  const list = (roles ?? 'cli')
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);
  return { id: as ?? defaultDecider(), ...(list.length ? { roles: list } : {}) };
}

function defaultDecider(): string {
  let user = process.env.USER ?? process.env.USERNAME;
  if (!user) {
    try {
      user = userInfo().username;
    } catch {
      user = 'unknown';
    }
  }
  return `${user}@${hostname()}`;
}
