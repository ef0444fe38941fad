/**
 * Jest global setup: one Temporal dev server for the whole run, on a fresh SQLite file, so
 * tests share a server without sharing state with earlier runs. With
 * TOLLGATE_TEST_TEMPORAL_ADDRESS set, the tests run against that server instead (the
 * PostgreSQL-backed topology of scripts/postgres-topology.sh) and no dev server is started.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findTemporalCli, startDevServer, type DevServer } from '../../src/devserver/index.js';

/** Where global-teardown finds the server; both run in Jest's main process. */
export interface TollgateTestGlobals {
  __tollgateDevServer?: DevServer;
}

export default async function globalSetup(): Promise<void> {
  const cliPath = await findTemporalCli();
  // Tests run in band, in this process, so they read the server from the environment.
  process.env.TEMPORAL_CLI = cliPath;
  const external = process.env.TOLLGATE_TEST_TEMPORAL_ADDRESS;
  if (external) {
    process.env.TEMPORAL_ADDRESS = external;
    process.env.TEMPORAL_NAMESPACE = process.env.TOLLGATE_TEST_TEMPORAL_NAMESPACE || 'default';
    delete process.env.TOLLGATE_TEST_DB_FILE;
    console.log(`\nExternal Temporal server for tests: ${external} (no dev server started)`);
    return;
  }
  const dbFile = join(await mkdtemp(join(tmpdir(), 'tollgate-test-')), 'dev-server.db');
  const server = await startDevServer({ cliPath, dbFile });
  (globalThis as TollgateTestGlobals).__tollgateDevServer = server;
  process.env.TEMPORAL_ADDRESS = server.address;
  process.env.TEMPORAL_NAMESPACE = server.namespace;
  process.env.TOLLGATE_TEST_DB_FILE = server.dbFile;
  console.log(`\nTemporal dev server for tests: ${server.address} (UI ${server.uiUrl})`);
}
