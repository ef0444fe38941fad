/**
 * The Tollgate worker of the load benchmark, in its own process so its memory can be read from
 * /proc. Hosts `load-agent` on TASK_QUEUE, its workflow cache bounded by MAX_CACHED_WORKFLOWS.
 *
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, MAX_CACHED_WORKFLOWS.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { hostAgentInChild } from '../support/child.js';
import { loadAgent } from './agent.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

const maxCachedWorkflows = Number(process.env.MAX_CACHED_WORKFLOWS);
if (!Number.isInteger(maxCachedWorkflows) || maxCachedWorkflows < 0)
  throw new Error('load worker: MAX_CACHED_WORKFLOWS must be a whole number.');

await hostAgentInChild('load worker', loadAgent(), { maxCachedWorkflows });
