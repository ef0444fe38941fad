/**
 * The journal the fault workers append to (one JSON object a line) and the scripts read back:
 * model turns, tool starts and ends, and effects. An effect happens at most once per idempotency
 * key: a marker file created with O_EXCL decides, atomically across processes.
 */
import { appendFileSync, closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type JournalEvent =
  'model-start' | 'model-end' | 'started' | 'effect' | 'finished' | 'effect-skipped';

/** One line of the journal. */
export interface JournalLine {
  event: JournalEvent;
  pid: number;
  /** Wall clock, ms. */
  at: number;
  /** The run's tag (from the prompt) and, for tools, the run id. */
  tag?: string;
  run?: string;
  step?: number;
  tool?: string;
  /** `context.idempotencyKey` of a tool execution. */
  key?: string;
  /** What the call is, independently of its ids: `<tag>/<tool>/step<n>`. */
  logical?: string;
  /** The activity attempt (1 first). */
  attempt?: number;
}

export class Journal {
  constructor(
    readonly file: string,
    private readonly markers: string,
  ) {}

  record(line: Omit<JournalLine, 'pid' | 'at'>): void {
    appendFileSync(this.file, JSON.stringify({ ...line, pid: process.pid, at: Date.now() }) + '\n');
  }

  /**
   * Performs the effect of `key` unless it already happened: true if it happened now. The
   * marker's exclusive create is the idempotent write a real tool would make.
   */
  effectOnce(line: Omit<JournalLine, 'pid' | 'at' | 'event'> & { key: string }): boolean {
    try {
      closeSync(openSync(join(this.markers, encodeURIComponent(line.key)), 'wx'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      this.record({ ...line, event: 'effect-skipped' });
      return false;
    }
    this.record({ ...line, event: 'effect' });
    return true;
  }
}

export function readJournal(file: string): JournalLine[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as JournalLine);
}
