import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

const OUTPUT_TAIL_LINES = 20;
const KILL_GRACE_MS = 10_000;

/** The CLI child process, its recent output, and its shutdown. */
export class ServerProcess {
  readonly pid: number;
  private readonly child: ChildProcess;
  private readonly tail: string[] = [];
  /** A Go panic's own line, which its goroutine dump pushes out of the tail. */
  private panic: string | undefined;
  private readonly exited: Promise<void>;
  private exitDescription: string | undefined;
  private stopping: Promise<void> | undefined;
  // A sync kill is all an 'exit' handler may do; it stops orphaned servers outliving a crash.
  private readonly killOnExit = () => this.child.kill('SIGTERM');

  constructor(
    cliPath: string,
    args: string[],
    private log?: (line: string) => void,
  ) {
    // Not detached, so the server shares the parent's process group and terminal signals.
    this.child = spawn(cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => {
        this.exitDescription = `could not be spawned: ${error.message}`;
        resolve();
      });
      this.child.once('close', (code, signal) => {
        this.exitDescription ??= `exited with ${signal ?? `code ${code}`}`;
        process.off('exit', this.killOnExit);
        resolve();
      });
    });
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => this.record(line));
    }
    this.pid = this.child.pid ?? -1;
    process.on('exit', this.killOnExit);
    this.setKeepsParentAlive(false);
  }

  /** Why the process ended, or `undefined` while it runs. */
  get exitReason(): string | undefined {
    return this.exitDescription;
  }

  /** The last lines the server printed, for error messages. */
  recentOutput(): string {
    const lost = this.panic !== undefined && !this.tail.includes(this.panic);
    return (lost ? [this.panic, '...', ...this.tail] : this.tail).join('\n');
  }

  stop(): Promise<void> {
    this.stopping ??= this.terminate();
    return this.stopping;
  }

  private async terminate(): Promise<void> {
    process.off('exit', this.killOnExit);
    this.log = undefined; // shutdown chatter (poll failures) is noise, not news
    if (this.exitDescription !== undefined) return;
    // Keep the process alive until the server is really gone, or the SIGKILL would never run.
    this.setKeepsParentAlive(true);
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), KILL_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  private record(line: string): void {
    if (line.startsWith('panic:')) this.panic ??= line;
    this.tail.push(line);
    if (this.tail.length > OUTPUT_TAIL_LINES) this.tail.shift();
    this.log?.(line);
  }

  private setKeepsParentAlive(keep: boolean): void {
    for (const handle of [this.child, this.child.stdout, this.child.stderr]) {
      const refable = handle as { ref?: () => void; unref?: () => void } | null;
      if (keep) refable?.ref?.();
      else refable?.unref?.();
    }
  }
}
