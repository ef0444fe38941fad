/**
 * Where the CLI writes: results on stdout (human text, or JSON with `--json`), errors and
 * progress on stderr. The spinner appears only when stderr is a terminal, so pipes, files and
 * CI logs never see control characters.
 */

const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const SPINNER_INTERVAL_MS = 80;

/** A writable end, narrowed to what the CLI uses (tests pass their own). */
export interface Sink {
  write(text: string): unknown;
  isTTY?: boolean;
}

export class Output {
  private spinnerText: string | undefined;
  private spinnerTimer: NodeJS.Timeout | undefined;
  private frame = 0;

  constructor(
    /** Machine output: JSON documents or JSON lines on stdout. */
    readonly json: boolean,
    private readonly stdout: Sink = process.stdout,
    private readonly stderr: Sink = process.stderr,
  ) {}

  /** Human text on stdout, as is (no newline added); nothing in JSON mode. */
  text(text: string): void {
    if (this.json) return;
    this.stopProgress();
    this.stdout.write(text);
  }

  /** One human line on stdout; nothing in JSON mode. */
  line(text = ''): void {
    this.text(`${text}\n`);
  }

  /** One JSON document (or one line of a JSON-lines stream) on stdout; nothing in human mode. */
  document(value: unknown): void {
    if (!this.json) return;
    this.stopProgress();
    this.stdout.write(`${JSON.stringify(value)}\n`);
  }

  /** A failure, on stderr: `error: CODE: message`, or `{ error: { code, message } }` in JSON. */
  error(code: string, message: string, hint?: string): void {
    this.stopProgress();
    if (this.json) {
      this.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
      return;
    }
    this.stderr.write(`error: ${code}: ${message}\n${hint ? `${hint}\n` : ''}`);
  }

  /**
   * Shows `text` with a spinner on stderr until `stopProgress()` or the next stdout write (the
   * spinner shares the terminal line, so it must not outlive a partial line of output).
   */
  progress(text: string): void {
    if (!this.stderr.isTTY) return;
    this.spinnerText = text;
    this.spinnerTimer ??= setInterval(() => this.drawSpinner(), SPINNER_INTERVAL_MS).unref();
    this.drawSpinner();
  }

  stopProgress(): void {
    clearInterval(this.spinnerTimer);
    this.spinnerTimer = undefined;
    this.clearSpinner();
    this.spinnerText = undefined;
  }

  private drawSpinner(): void {
    if (this.spinnerText === undefined) return;
    const frame = SPINNER_FRAMES[this.frame++ % SPINNER_FRAMES.length]!;
    this.stderr.write(`\r\x1b[K${frame} ${this.spinnerText}`);
  }

  private clearSpinner(): void {
    if (this.spinnerText !== undefined) this.stderr.write('\r\x1b[K');
  }
}

/** Left-aligned columns separated by two spaces, with a header row. */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const format = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ');
  return [format(headers), ...rows.map(format)].join('\n');
}

/** `text` cut to `max` characters, ending in an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** "just now", "42s ago", "5m ago", "3h ago", "2d ago" for an ISO-8601 instant. */
export function relativeTime(iso: string, now = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.floor(hours / 24)}d ago`;
}

/** Compact JSON for one line of human output. */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}
