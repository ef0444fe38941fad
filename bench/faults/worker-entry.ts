/**
 * A fault-benchmark worker in its own process (started by `bench/faults.ts`, which SIGKILLs it at
 * random moments). Hosts `fault-agent` on TASK_QUEUE and journals to JOURNAL_FILE.
 *
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, JOURNAL_FILE, MARKERS_DIR.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { hostAgentInChild } from '../support/child.js';
import { faultAgent } from './agent.js';
import { Journal } from './journal.js';

// Connection errors while the server restarts are expected; keep the output for real trouble.
Runtime.install({ logger: new DefaultLogger('ERROR') });

const journalFile = process.env.JOURNAL_FILE;
const markersDir = process.env.MARKERS_DIR;
if (!journalFile || !markersDir)
  throw new Error('fault worker: JOURNAL_FILE and MARKERS_DIR must be set.');

// A worker started while the server restarts waits for it, as a production worker would.
await hostAgentInChild('fault worker', faultAgent(new Journal(journalFile, markersDir)), {
  connectTimeout: '2 minutes',
});
