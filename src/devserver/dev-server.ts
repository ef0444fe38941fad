/**
 * Starts a local Temporal dev server (`temporal server start-dev`) backed by a SQLite file.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { ensureSearchAttributes } from '../temporal-client/search-attributes.js';
import { freePorts } from './free-ports.js';
import { TollgateError } from '../common/errors.js';
import { DEFAULT_NAMESPACE, SEARCH_ATTRIBUTES } from '../common/wire.js';
import { findTemporalCli } from './temporal-cli.js';
import { ServerProcess } from './server-process.js';

/** Options for {@link startDevServer}. */
export interface DevServerOptions {
  /** Frontend gRPC port. Default: a free port, chosen by binding `127.0.0.1:0`. */
  port?: number;
  /** Web UI port. Default: another free port. */
  uiPort?: number;
  /**
   * SQLite file holding the server's state; restarting on the same file keeps workflows.
   * Default: `.tollgate/dev-server.db` under `process.cwd()`. Its directory is created.
   */
  dbFile?: string;
  /** Namespace created at launch and checked for readiness. Default: `'default'`. */
  namespace?: string;
  /** Receives the server's output lines and CLI install progress. Default: output is dropped. */
  log?: (line: string) => void;
  /** Path of the `temporal` CLI. Default: found (or installed) by `findTemporalCli`. */
  cliPath?: string;
  /** How long to wait for the server to answer before giving up. Default: `60000` ms. */
  startTimeoutMs?: number;
  /** Server log level: `debug`, `info`, `warn`, `error` or `never`. Default: `'warn'`. */
  logLevel?: string;
  /**
   * Server dynamic config, e.g. `{ 'limit.blobSize.error': 65536 }` to try Temporal's limits at a
   * small scale. Values are passed as JSON and win over {@link TUNED_DYNAMIC_CONFIG}. Default: none
   * beyond the tuned values.
   */
  dynamicConfig?: Record<string, string | number | boolean>;
  /**
   * Whether the server starts with {@link TUNED_DYNAMIC_CONFIG} (eager activity dispatch, and a
   * transfer queue polled without the 20-per-second throttle), which takes most of the wait out of
   * every activity completion, signal and update (docs/performance.md). `false`: Temporal's own
   * defaults, as a server started by hand has them. Default: `true`.
   */
  tuned?: boolean;
}

/**
 * The dynamic config a Tollgate dev server runs with unless `tuned: false`; each setting is
 * explained, with its cost and measured effect, in docs/performance.md.
 */
export const TUNED_DYNAMIC_CONFIG: Readonly<Record<string, string | number | boolean>> =
  Object.freeze({
    // The worker that completes a workflow task gets the activities it schedules in the reply,
    // without a round trip through matching.
    'system.enableActivityEagerExecution': true,
    // The history transfer queue (new workflow/activity tasks after a completion, signal or
    // update) is read up to 20 times a second by default: a task waits up to ~50 ms for a poll.
    'history.transferProcessorMaxPollRPS': 2000,
  });

/** A running dev server. */
export interface DevServer {
  /** Frontend gRPC address, `127.0.0.1:<port>`. */
  address: string;
  namespace: string;
  /** Web UI, `http://127.0.0.1:<uiPort>`. */
  uiUrl: string;
  /** Absolute path of the SQLite state file. */
  dbFile: string;
  pid: number;
  /** The dynamic config it was started with (the tuned values unless `tuned: false`). */
  dynamicConfig: Readonly<Record<string, string | number | boolean>>;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s). Idempotent. */
  stop(): Promise<void>;
}

const PROBE_INTERVAL_MS = 250;

/**
 * Starts `temporal server start-dev` on 127.0.0.1 with Tollgate's search attributes and resolves
 * once the namespace answers. The server does not keep the Node process alive, and is sent
 * SIGTERM when the process exits without calling `stop()`.
 *
 * @throws TollgateError `TEMPORAL_SERVER_START_FAILED` if the server exits or does not answer
 *   within `startTimeoutMs`; `TEMPORAL_CLI_UNAVAILABLE` if no CLI can be found.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  const dbFile = resolve(options.dbFile ?? join(process.cwd(), '.tollgate', 'dev-server.db'));
  await mkdir(dirname(dbFile), { recursive: true });
  const cliPath =
    options.cliPath ?? (await findTemporalCli(options.log ? { log: options.log } : {}));
  // A port found free can be taken by another process before the CLI binds it, ours or one the
  // CLI chose itself for its inner services (it panics then): choose again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options, cliPath, namespace, dbFile);
    } catch (error) {
      const chosenHere = options.port === undefined || options.uiPort === undefined;
      if (attempt >= START_ATTEMPTS || !chosenHere || !portTaken(error)) throw error;
    }
  }
}

const START_ATTEMPTS = 3;

function portTaken(error: unknown): boolean {
  return error instanceof TollgateError && /address already in use|^panic:/m.test(error.message);
}

async function startOnce(
  options: DevServerOptions,
  cliPath: string,
  namespace: string,
  dbFile: string,
): Promise<DevServer> {
  const free = await freePorts(3);
  const port = options.port ?? free[0]!;
  const uiPort = options.uiPort ?? free.find((candidate) => candidate !== port)!;
  // Chosen here too: the CLI's own choice (the gRPC port + 1000) may be another process's.
  const httpPort = free.find((candidate) => candidate !== port && candidate !== uiPort)!;
  const address = `127.0.0.1:${port}`;
  const dynamicConfig = Object.freeze({
    ...(options.tuned === false ? {} : TUNED_DYNAMIC_CONFIG),
    ...options.dynamicConfig,
  });

  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--http-port',
    String(httpPort),
    '--db-filename',
    dbFile,
    '--namespace',
    namespace,
    '--log-level',
    options.logLevel ?? 'warn',
    ...Object.values(SEARCH_ATTRIBUTES).flatMap((a) => [
      '--search-attribute',
      `${a.name}=${a.type}`,
    ]),
    ...Object.entries(dynamicConfig).flatMap(([key, value]) => [
      '--dynamic-config-value',
      `${key}=${JSON.stringify(value)}`,
    ]),
  ];
  const server = new ServerProcess(cliPath, args, options.log);
  try {
    await waitUntilReady(server, address, namespace, options.startTimeoutMs ?? 60_000);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    address,
    namespace,
    uiUrl: `http://127.0.0.1:${uiPort}`,
    dbFile,
    pid: server.pid,
    dynamicConfig,
    stop: () => server.stop(),
  };
}

/** Polls until the frontend answers and the namespace is registered, then ensures attributes. */
async function waitUntilReady(
  server: ServerProcess,
  address: string,
  namespace: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    if (server.exitReason !== undefined) {
      throw startFailed(`The temporal dev server ${server.exitReason} before it was ready`, server);
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw startFailed(
        `The temporal dev server did not answer on ${address} within ${timeoutMs} ms${reason}`,
        server,
      );
    }
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address, connectTimeout: 2_000 });
      await connection.workflowService.getSystemInfo({});
      await connection.workflowService.describeNamespace({ namespace });
      await ensureSearchAttributes(connection, namespace);
      return;
    } catch (error) {
      lastError = error;
    } finally {
      await connection?.close();
    }
    await sleep(PROBE_INTERVAL_MS);
  }
}

function startFailed(message: string, server: ServerProcess): TollgateError {
  return new TollgateError(
    'TEMPORAL_SERVER_START_FAILED',
    `${message}; its last output was:\n${server.recentOutput() || '(none)'}`,
  );
}
