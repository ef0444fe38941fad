/**
 * A fault-benchmark worker in its own process (started by `bench/faults.ts`, which SIGKILLs it at
 * random moments). Hosts `fault-agent` on TASK_QUEUE and journals to JOURNAL_FILE.
 *
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, JOURNAL_FILE, MARKERS_DIR.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Tollgate } from '../../src/index.js';
import { childSide } from '../support/child.js';
import { faultAgent } from './agent.js';
import { Journal } from './journal.js';

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`fault worker: the environment variable ${name} is not set.`);
  return value;
}

// Connection errors while the server restarts are expected; keep the output for real trouble.
Runtime.install({ logger: new DefaultLogger('ERROR') });

const journal = new Journal(requiredEnv('JOURNAL_FILE'), requiredEnv('MARKERS_DIR'));
const tollgate = new Tollgate({
  agents: { agent: faultAgent(journal) },
  temporal: {
    address: requiredEnv('TEMPORAL_ADDRESS'),
    namespace: requiredEnv('TEMPORAL_NAMESPACE'),
    taskQueue: requiredEnv('TASK_QUEUE'),
  },
});
const parent = childSide(() => tollgate.shutdown());
try {
  await tollgate.startWorker();
  parent.ready();
} catch (error) {
  console.error('fault worker: the worker did not start:', error);
  process.exit(1);
}
