/**
 * Worker child processes of the on-demand scripts. A child talks to its parent over an IPC
 * channel: it says `ready` once its worker polls, answers `memory` requests with
 * `process.memoryUsage()`, and exits when the channel closes, so no child outlives its parent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Tollgate, type Agent, type WorkerSettings } from '../../src/index.js';
import { processMemory, type ProcessMemory } from './system.js';

type ParentMessage = { type: 'memory'; id: number };
type ChildMessage =
  { type: 'ready'; pid: number } | { type: 'memory'; id: number; usage: NodeJS.MemoryUsage };

/** All children still alive, SIGKILLed if the parent exits without stopping them. */
const living = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of living) child.kill('SIGKILL');
});

export interface ChildOptions {
  name: string;
  script: string;
  /** Where the child's worker polls: passed as TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE. */
  temporal: { address: string; namespace: string; taskQueue: string };
  /** The rest of what the child's script reads from its environment. */
  env?: Record<string, string>;
  /** Node options for the child, e.g. `--max-old-space-size=512`. */
  execArgv?: string[];
}

/** A worker in its own process: its pid, its recent output (for failure messages), its end. */
export class ChildWorker {
  readonly child: ChildProcess;
  readonly exited: Promise<string>;
  readonly startedAt = Date.now();
  readyAt: number | undefined;
  private output = '';
  /** Called with each chunk of the child's stdout and stderr. */
  onOutput: ((text: string) => void) | undefined;
  private readonly ready: Promise<void>;
  private nextId = 0;
  private readonly answers = new Map<number, (usage: NodeJS.MemoryUsage) => void>();

  constructor(readonly options: ChildOptions) {
    this.child = spawn(process.execPath, [...(options.execArgv ?? []), options.script], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: options.temporal.address,
        TEMPORAL_NAMESPACE: options.temporal.namespace,
        TASK_QUEUE: options.temporal.taskQueue,
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    living.add(this.child);
    for (const stream of [this.child.stdout!, this.child.stderr!])
      stream.on('data', (data: Buffer) => {
        this.output = (this.output + data).slice(-8000);
        this.onOutput?.(String(data));
      });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        living.delete(this.child);
        resolve(signal ?? `code ${code}`);
      }),
    );
    this.ready = new Promise<void>((resolve, reject) => {
      this.child.on('message', (message: ChildMessage) => {
        if (message.type === 'ready') {
          this.readyAt = Date.now();
          resolve();
        } else if (message.type === 'memory') {
          this.answers.get(message.id)?.(message.usage);
          this.answers.delete(message.id);
        }
      });
      void this.exited.then((how) =>
        reject(new Error(`${options.name} exited (${how}) before it was ready:\n${this.output}`)),
      );
    });
    this.ready.catch(() => undefined);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get name(): string {
    return this.options.name;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  get isReady(): boolean {
    return this.readyAt !== undefined && this.alive;
  }

  /** Resolves once the worker polls; rejects if the child exits first or takes too long. */
  async whenReady(timeoutMs = 120_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`${this.name} was not ready within ${timeoutMs} ms:\n${this.output}`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([this.ready, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends `signal` and waits (bounded) for the exit; SIGKILL after `timeoutMs`. */
  async stop(signal: NodeJS.Signals, timeoutMs = 15_000): Promise<string> {
    if (!this.alive) return this.exited;
    this.child.kill(signal);
    const timer = new AbortController();
    const how = await Promise.race([
      this.exited,
      sleep(timeoutMs, 'timeout', { signal: timer.signal }).catch(() => 'aborted'),
    ]);
    timer.abort();
    if (how !== 'timeout') return how;
    this.child.kill('SIGKILL');
    return this.exited;
  }

  /** VmRSS and VmHWM from /proc. */
  memory(): ProcessMemory | undefined {
    return processMemory(this.pid);
  }

  /** The child's own `process.memoryUsage()` (heap, external), or undefined if it does not answer. */
  async heap(timeoutMs = 5000): Promise<NodeJS.MemoryUsage | undefined> {
    if (!this.alive || !this.child.connected) return undefined;
    const id = this.nextId++;
    const answer = new Promise<NodeJS.MemoryUsage>((resolve) => this.answers.set(id, resolve));
    const message: ParentMessage = { type: 'memory', id };
    this.child.send(message);
    const timer = new AbortController();
    const result = await Promise.race([
      answer,
      sleep(timeoutMs, undefined, { signal: timer.signal }).catch(() => undefined),
    ]);
    timer.abort();
    this.answers.delete(id);
    return result;
  }

  /** The last `chars` characters the child printed. */
  recentOutput(chars = 600): string {
    return this.output.slice(-chars).trim();
  }

  describe(): string {
    return `${this.name} (pid ${this.pid}) output:\n${this.output || '(none)'}`;
  }
}

/**
 * The child's side: exit when the parent goes away, answer memory requests, and return a
 * function that tells the parent the worker is ready.
 */
export function childSide(onStop: () => Promise<void>): { ready(): void } {
  if (!process.send) throw new Error('This script is started by a bench script, over IPC.');
  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    // A worker that cannot shut down within 10 s is ended anyway: scripts stop by themselves.
    setTimeout(() => process.exit(code), 10_000).unref();
    onStop().then(
      () => process.exit(code),
      (error: unknown) => {
        console.error('worker child: shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  process.on('disconnect', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'memory') {
      const answer: ChildMessage = { type: 'memory', id: message.id, usage: process.memoryUsage() };
      process.send?.(answer);
    }
  });
  return {
    ready: () => {
      const message: ChildMessage = { type: 'ready', pid: process.pid };
      process.send?.(message);
    },
  };
}

/**
 * A Tollgate worker child's whole life: hosts `agent` on TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and
 * TASK_QUEUE, tells the parent once it polls, stops with the parent, and exits 1 if the worker
 * does not start or stops by itself (so the parent sees a dead child, not an idle one).
 */
export async function hostAgentInChild(
  label: string,
  agent: Agent,
  worker: WorkerSettings = {},
): Promise<void> {
  const env = (name: string): string => {
    const value = process.env[name];
    if (!value) throw new Error(`${label}: the environment variable ${name} is not set.`);
    return value;
  };
  const tollgate = new Tollgate({
    agents: { agent },
    temporal: {
      address: env('TEMPORAL_ADDRESS'),
      namespace: env('TEMPORAL_NAMESPACE'),
      taskQueue: env('TASK_QUEUE'),
    },
    worker,
  });
  const parent = childSide(() => tollgate.shutdown());
  try {
    await tollgate.startWorker();
  } catch (error) {
    console.error(`${label}: the worker did not start:`, error);
    process.exit(1);
  }
  parent.ready();
  tollgate.workerStopped().catch((error: unknown) => {
    console.error(`${label}:`, error);
    process.exit(1);
  });
}
