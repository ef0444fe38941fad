/** The benchmark's own Temporal dev server (temp SQLite file) and an in-process Tollgate worker. */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, platform, arch, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import {
  findTemporalCli,
  startDevServer,
  Tollgate,
  type Agent,
  type DevServer,
} from '../src/index.js';

/** The server a bench runs against: its own dev server, or one already running. */
export interface BenchServer {
  address: string;
  namespace: string;
  /** The dev server's pid, for its CPU time; -1 for an external server. */
  pid: number;
  /** The dynamic config it runs with, when the bench started it; undefined for an external one. */
  dynamicConfig?: DevServer['dynamicConfig'];
}

export interface ServerChoice {
  /** Start the dev server with the tuned dynamic config (the default) or Temporal's defaults. */
  tuned?: boolean;
  /** Use this running server (e.g. the PostgreSQL topology) instead of starting one. */
  external?: { address: string; namespace: string };
  /** Extra dynamic config values for the started dev server (e.g. a lower history limit). */
  dynamicConfig?: Record<string, string | number | boolean>;
  /** The runtime's `follow` (docs/streams.md "Following by update"); default `history`. */
  follow?: 'history' | 'update';
}

export interface BenchEnvironment {
  server: BenchServer;
  tollgate: Tollgate;
  cliPath: string;
  taskQueue: string;
  /** Shuts the worker down, stops the server and deletes its SQLite file. */
  close(): Promise<void>;
}

export async function startEnvironment(
  agents: Agent[],
  choice: ServerChoice = {},
): Promise<BenchEnvironment> {
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-bench-'));
  const cliPath = await findTemporalCli();
  const server: BenchServer & { stop(): Promise<void> } = choice.external
    ? { ...choice.external, pid: -1, stop: async () => undefined }
    : await startDevServer({
        cliPath,
        dbFile: join(dir, 'dev-server.db'),
        tuned: choice.tuned !== false,
        ...(choice.dynamicConfig ? { dynamicConfig: choice.dynamicConfig } : {}),
      });
  const taskQueue = `bench-${randomUUID().slice(0, 8)}`;
  const tollgate = new Tollgate({
    agents: Object.fromEntries(agents.map((agent) => [agent.id, agent])),
    temporal: { address: server.address, namespace: server.namespace, taskQueue },
    ...(choice.follow ? { follow: choice.follow } : {}),
  });
  const close = async () => {
    try {
      await tollgate.shutdown();
    } finally {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  };
  try {
    await tollgate.startWorker();
  } catch (error) {
    await close();
    throw error;
  }
  return { server, tollgate, cliPath, taskQueue, close };
}

/** One line on the machine and the versions measured, so figures can be compared across runs. */
export async function environmentFacts(cliPath: string): Promise<string[]> {
  const cores = cpus();
  const temporal = await promisify(execFile)(cliPath, ['--version']).then(
    ({ stdout }) => stdout.trim(),
    () => 'temporal CLI (version unknown)',
  );
  const driver = await sqliteDriver(cliPath);
  const versions = await Promise.all(
    ['ai', '@temporalio/worker', '@temporalio/client'].map(
      async (name) => `${name} ${await packageVersion(name)}`,
    ),
  );
  return [
    `node ${process.version}, ${platform()} ${arch()}, ${cores.length} cores (${cores[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
    `${temporal} with ${driver}; ${versions.join(', ')}`,
  ];
}

/**
 * The SQLite driver the CLI was built with, read by `go version -m`: before v1.40.1 it can leave
 * the dev server stuck under load (docs/performance.md "The stuck dev server").
 */
async function sqliteDriver(cliPath: string): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)('go', ['version', '-m', cliPath], {
      maxBuffer: 16 * 2 ** 20,
    });
    const version = /\bmodernc\.org\/sqlite\s+(v\S+)/.exec(stdout)?.[1];
    if (version) return `modernc.org/sqlite ${version}`;
  } catch {
    // No Go on PATH, or a binary without build information.
  }
  return 'an unknown SQLite driver';
}

async function packageVersion(name: string): Promise<string> {
  // Compiled to dist/bench/, two levels below the project root.
  const file = fileURLToPath(new URL(`../../node_modules/${name}/package.json`, import.meta.url));
  try {
    return (JSON.parse(await readFile(file, 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
