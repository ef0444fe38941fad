/**
 * A Server-Sent Events parser following the WHATWG HTML "event stream interpretation" rules:
 * lines end with CRLF, LF or CR (also when split across reads), `:` lines are comments, `data`
 * lines join with `\n`, an event without data is not dispatched, the last event id persists,
 * and an event the stream cut off before its blank line is dropped. Browser- and Node-safe.
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `event` field, or `message` when absent. */
  type: string;
  /** The `data` lines joined with `\n`. */
  data: string;
  /** The last event id seen so far in the stream (`id` persists across events), or ''. */
  id: string;
}

const LINE_END = /\r\n|\r|\n/g;

/** Incremental parser: feed it decoded text as it arrives, in pieces of any size. */
export class SseParser {
  /** The server's last `retry` value, ms, if it sent one. */
  retry: number | undefined;
  private partial = '';
  private atStart = true;
  /** The previous piece ended with CR: an LF opening the next piece belongs to that line end. */
  private afterCr = false;
  private data: string[] = [];
  private type = '';
  private lastId = '';

  /** Parses the next piece of the stream; returns the events it completed. */
  push(text: string): SseEvent[] {
    if (text === '') return [];
    let piece = text;
    if (this.atStart) {
      this.atStart = false;
      if (piece.startsWith('\uFEFF')) piece = piece.slice(1);
    }
    if (this.afterCr && piece.startsWith('\n')) piece = piece.slice(1);
    this.afterCr = piece.endsWith('\r');
    const events: SseEvent[] = [];
    let start = 0;
    LINE_END.lastIndex = 0;
    for (let match = LINE_END.exec(piece); match; match = LINE_END.exec(piece)) {
      const line = this.partial + piece.slice(start, match.index);
      this.partial = '';
      start = match.index + match[0].length;
      const event = this.line(line);
      if (event) events.push(event);
    }
    this.partial += piece.slice(start);
    return events;
  }

  /** The stream ended: an event that had not reached its blank line is dropped. */
  end(): void {
    this.partial = '';
    this.data = [];
    this.type = '';
    this.afterCr = false;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.type = value;
        break;
      case 'data':
        this.data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
    }
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const { data, type } = this;
    this.data = [];
    this.type = '';
    if (data.length === 0) return undefined;
    return { type: type || 'message', data: data.join('\n'), id: this.lastId };
  }
}

/**
 * The events of an SSE response body, decoded as UTF-8. Stopping the iteration cancels the
 * body, which closes the connection.
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        yield* parser.push(decoder.decode());
        parser.end();
        return;
      }
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
