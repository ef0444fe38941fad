/**
 * What the fault benchmark breaks: its own Temporal dev server (SQLite file and ports fixed, so it
 * can be stopped and started again) and two worker child processes, SIGKILLed and respawned.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChildWorker } from '../support/child.js';
import { RestartableServer, type ServerRestart } from '../support/dev-server.js';
import { readJournal, type JournalLine } from './journal.js';

const WORKER_SCRIPT = fileURLToPath(new URL('./worker-entry.js', import.meta.url));

/** What a killed worker was doing, read from the journal: its model turns and tools in flight. */
export interface InFlight {
  models: string[];
  tools: string[];
}

export interface KillRecord {
  at: number;
  worker: string;
  pid: number;
  inFlight: InFlight;
  /** Runs the orchestrator knew to be parked on a decision at that moment. */
  parkedRuns: number;
}

/** A worker that ended, or stopped polling, without being killed by the benchmark. */
export interface WorkerFailure {
  at: number;
  worker: string;
  pid: number;
  how: string;
  output: string;
}

/** Tollgate's line when its agent worker's `run()` fails: the process lives on, polling nothing. */
const WORKER_STOPPED = '[tollgate] agent worker stopped';

export class FaultCluster {
  server!: RestartableServer;
  readonly workers: ChildWorker[] = [];
  readonly kills: KillRecord[] = [];
  /** Workers that died or stopped polling by themselves; each was replaced. */
  readonly failures: WorkerFailure[] = [];
  private readonly killedByUs = new Set<ChildWorker>();
  private closing = false;
  /** Worker start to READY, ms, for every worker started. */
  readonly readyMs: number[] = [];
  private generation = 0;

  constructor(
    readonly dir: string,
    readonly taskQueue: string,
    private readonly cliPath: string,
  ) {}

  get journalFile(): string {
    return join(this.dir, 'journal.jsonl');
  }

  get markersDir(): string {
    return join(this.dir, 'markers');
  }

  /** Planned restarts and the watchdog's (a dev server stuck in its SQLite driver). */
  get restarts(): ServerRestart[] {
    return this.server?.restarts ?? [];
  }

  async start(workerCount: number): Promise<void> {
    await writeFile(this.journalFile, '');
    await mkdir(this.markersDir, { recursive: true });
    this.server = await RestartableServer.start(this.cliPath, join(this.dir, 'dev-server.db'));
    this.server.watch();
    for (let slot = 0; slot < workerCount; slot++) this.workers.push(this.spawn(slot));
    await Promise.all(this.workers.map((worker) => worker.whenReady()));
  }

  /** SIGKILLs the worker in `slot` and starts its replacement at once (not waiting for READY). */
  async kill(slot: number, parkedRuns: number): Promise<KillRecord> {
    const victim = this.workers[slot]!;
    const inFlight = inFlightOf(readJournal(this.journalFile), victim.pid);
    this.killedByUs.add(victim);
    victim.child.kill('SIGKILL');
    await victim.exited;
    const record: KillRecord = {
      at: Date.now(),
      worker: victim.name,
      pid: victim.pid,
      inFlight,
      parkedRuns,
    };
    this.kills.push(record);
    this.workers[slot] = this.spawn(slot);
    return record;
  }

  /** What each live worker has in flight now, by slot. */
  inFlightBySlot(): InFlight[] {
    const lines = readJournal(this.journalFile);
    return this.workers.map((worker) =>
      worker.alive ? inFlightOf(lines, worker.pid) : { models: [], tools: [] },
    );
  }

  /** Stops the dev server and starts it again on the same SQLite file and ports. */
  restartServer(): Promise<void> {
    return this.server.restart('planned');
  }

  /** Waits (bounded) until every slot has a live, ready worker, respawning dead ones. */
  async ensureWorkers(timeoutMs: number): Promise<void> {
    for (let slot = 0; slot < this.workers.length; slot++) {
      if (!this.workers[slot]!.alive) this.workers[slot] = this.spawn(slot);
    }
    await Promise.all(this.workers.map((worker) => worker.whenReady(timeoutMs)));
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((worker) => worker.stop('SIGTERM', 12_000)));
    await this.server?.stop();
  }

  private spawn(slot: number): ChildWorker {
    const worker = new ChildWorker({
      name: `worker ${slot}.${this.generation++}`,
      script: WORKER_SCRIPT,
      temporal: {
        address: this.server.address,
        namespace: this.server.namespace,
        taskQueue: this.taskQueue,
      },
      env: {
        JOURNAL_FILE: this.journalFile,
        MARKERS_DIR: this.markersDir,
      },
    });
    worker.whenReady().then(
      () => this.readyMs.push(worker.readyAt! - worker.startedAt),
      () => undefined,
    );
    // A worker whose run() failed keeps its process: end it, so the exit below replaces it.
    worker.onOutput = (text) => {
      if (text.includes(WORKER_STOPPED) && worker.alive) {
        this.failures.push({
          at: Date.now(),
          worker: worker.name,
          pid: worker.pid,
          how: 'stopped polling (process alive)',
          output: worker.recentOutput(),
        });
        this.killedByUs.add(worker);
        worker.child.kill('SIGKILL');
        this.replaceLater(slot, worker);
      }
    };
    void worker.exited.then((how) => {
      if (this.killedByUs.has(worker) || this.closing) return;
      this.failures.push({
        at: Date.now(),
        worker: worker.name,
        pid: worker.pid,
        how: `exited by itself (${how})`,
        output: worker.recentOutput(),
      });
      this.replaceLater(slot, worker);
    });
    return worker;
  }

  /** Starts a replacement for `worker` in `slot` a second later, unless it was replaced already. */
  private replaceLater(slot: number, worker: ChildWorker): void {
    setTimeout(() => {
      if (!this.closing && this.workers[slot] === worker) this.workers[slot] = this.spawn(slot);
    }, 1000);
  }
}

/** Longest a model turn or tool of this agent takes; an older start without an end was cut off. */
const LONGEST_WORK_MS = 10_000;

/** Model turns and tool executions `pid` started (recently) and did not end. */
export function inFlightOf(lines: JournalLine[], pid: number, now = Date.now()): InFlight {
  const models = new Map<string, number>();
  const tools = new Map<string, number>();
  for (const line of lines) {
    if (line.pid !== pid) continue;
    if (line.event === 'model-start') models.set(`${line.tag}#${line.step}`, line.at);
    if (line.event === 'model-end') models.delete(`${line.tag}#${line.step}`);
    if (line.event === 'started') tools.set(`${line.logical}`, line.at);
    if (line.event === 'finished') tools.delete(`${line.logical}`);
  }
  const recent = (started: Map<string, number>) =>
    [...started].filter(([, at]) => now - at < LONGEST_WORK_MS).map(([what]) => what);
  return { models: recent(models), tools: recent(tools) };
}
