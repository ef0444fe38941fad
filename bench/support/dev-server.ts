/**
 * A dev server the on-demand scripts can restart on the same SQLite file and ports, with a
 * watchdog for one failure of the dev server itself: its SQLite driver (modernc.org/sqlite in the
 * temporal CLI) can get stuck answering every query with `interrupted (9)` — the namespace then
 * reads as "not found" and nothing moves until the server restarts. The watchdog probes the
 * namespace every few seconds and restarts a server stuck that way; every restart is recorded.
 */
import { Connection } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDevServer, type DevServer } from '../../src/index.js';
import { progress } from '../stats.js';
import { freePorts } from '../../src/devserver/index.js';

export interface ServerRestart {
  at: number;
  /** Stop to answering again, ms. */
  downMs: number;
  reason: string;
}

/** Errors of a server whose SQLite connection is stuck, as opposed to one that is down. */
const STUCK = /interrupted|namespace .* (is )?not found|not found.*namespace/i;

export class RestartableServer {
  server!: DevServer;
  readonly restarts: ServerRestart[] = [];
  private restarting: Promise<void> | undefined;
  private watching: { stop: () => Promise<void> } | undefined;

  private constructor(
    private readonly options: Parameters<typeof startDevServer>[0] & object,
    /** A server someone else started: never restarted or stopped from here. */
    private readonly external = false,
  ) {}

  /** Wraps a running server (e.g. the side-by-side bench's) that this process does not own. */
  static attach(running: { address: string; namespace: string; pid: number }): RestartableServer {
    const attached = new RestartableServer({}, true);
    attached.server = {
      ...running,
      uiUrl: '',
      dbFile: '',
      dynamicConfig: {},
      stop: async () => undefined,
    };
    return attached;
  }

  /** Starts a dev server on two free ports that stay its ports across restarts. */
  static async start(cliPath: string, dbFile: string, tuned = true): Promise<RestartableServer> {
    const [port, uiPort] = await freePorts(2);
    const restartable = new RestartableServer({
      cliPath,
      dbFile,
      port: port!,
      uiPort: uiPort!,
      tuned,
    });
    restartable.server = await startDevServer(restartable.options);
    return restartable;
  }

  get address(): string {
    return this.server.address;
  }

  get namespace(): string {
    return this.server.namespace;
  }

  get pid(): number {
    return this.server.pid;
  }

  get down(): boolean {
    return this.restarting !== undefined;
  }

  /** Stops the server and starts it again on the same file and ports (one restart at a time). */
  restart(reason: string): Promise<void> {
    this.restarting ??= (async () => {
      const stopped = Date.now();
      await this.server.stop();
      for (let attempt = 1; ; attempt++) {
        try {
          this.server = await startDevServer(this.options);
          break;
        } catch (error) {
          if (attempt >= 3) throw error;
          progress(`the dev server did not come back (attempt ${attempt}): ${String(error)}`);
          await sleep(2000);
        }
      }
      this.restarts.push({ at: stopped, downMs: Date.now() - stopped, reason });
    })().finally(() => (this.restarting = undefined));
    return this.restarting;
  }

  /** Probes every `everyMs`; two stuck answers in a row restart the server. */
  watch(everyMs = 5000): void {
    if (this.watching || this.external) return;
    let stopped = false;
    const loop = (async () => {
      let stuck = 0;
      let connection: Connection | undefined;
      while (!stopped) {
        await sleep(everyMs);
        if (stopped || this.restarting) continue;
        try {
          // No retry interceptor: a probe answers now or fails now.
          connection ??= await Connection.connect({ address: this.address, interceptors: [] });
          await connection.withDeadline(Date.now() + 5000, () =>
            connection!.workflowService.describeNamespace({ namespace: this.namespace }),
          );
          stuck = 0;
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          stuck = STUCK.test(message) ? stuck + 1 : 0;
          if (stuck >= 2 && !stopped) {
            progress(`the dev server is stuck (${message.slice(0, 120)}); restarting it`);
            await connection?.close().catch(() => undefined);
            connection = undefined;
            await this.restart(`stuck: ${message.slice(0, 80)}`).catch((e: unknown) =>
              progress(`restart failed: ${String(e)}`),
            );
            stuck = 0;
          }
        }
      }
      await connection?.close().catch(() => undefined);
    })();
    this.watching = {
      stop: async () => {
        stopped = true;
        await loop;
      },
    };
  }

  async stop(): Promise<void> {
    await this.watching?.stop();
    await this.restarting?.catch(() => undefined);
    await this.server.stop();
  }
}
