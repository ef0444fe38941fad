import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/index.js';

/**
 * A dev server of a test's own (not the suite's shared one), with its SQLite file in a fresh
 * temporary folder named after `name`, and `dynamicConfig` on top of Tollgate's settings: for
 * tests of Temporal's limits.
 */
export async function ownDevServer(
  name: string,
  dynamicConfig: Record<string, string | number | boolean>,
): Promise<DevServer> {
  const dbFile = join(await mkdtemp(join(tmpdir(), `tollgate-${name}-`)), 'dev-server.db');
  return startDevServer({ cliPath: process.env.TEMPORAL_CLI, dbFile, dynamicConfig });
}
