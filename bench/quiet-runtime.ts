import { DefaultLogger, Runtime } from '@temporalio/worker';

// Imported first by run.ts: the Runtime must be installed before any worker or native
// connection exists, and worker state changes are INFO logs that would bury the figures.
Runtime.install({ logger: new DefaultLogger('WARN') });
