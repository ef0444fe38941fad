import { describe, expect, it } from '@jest/globals';
import { readSseEvents, SseParser, type SseEvent } from '../../src/http-client/sse-parser.js';

/** Feeds `pieces` to a fresh parser and returns every event it dispatched. */
function parse(...pieces: string[]): SseEvent[] {
  const parser = new SseParser();
  const events = pieces.flatMap((piece) => parser.push(piece));
  parser.end();
  return events;
}

/** Every way of cutting `text` in two, plus one piece per character. */
function splits(text: string): string[][] {
  const cuts = Array.from({ length: text.length + 1 }, (_, at) => [
    text.slice(0, at),
    text.slice(at),
  ]);
  return [...cuts, [...text]];
}

function bytesStream(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

describe('SseParser (WHATWG event stream interpretation)', () => {
  it('dispatches an event with its id and data at the blank line', () => {
    expect(parse('id: 3\ndata: {"a":1}\n\n')).toEqual([
      { type: 'message', data: '{"a":1}', id: '3' },
    ]);
  });

  it('joins multi-line data with LF and takes the event type', () => {
    expect(parse('event: error\ndata: one\ndata: two\ndata:\n\n')).toEqual([
      { type: 'error', data: 'one\ntwo\n', id: '' },
    ]);
  });

  it('accepts CRLF, CR and LF line ends, mixed', () => {
    expect(parse('data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\n\n')).toEqual([
      { type: 'message', data: 'a', id: '' },
      { type: 'message', data: 'b', id: '' },
      { type: 'message', data: 'c', id: '' },
      { type: 'message', data: 'd', id: '' },
    ]);
  });

  it('gives the same events however the stream is cut, including inside CRLF and field names', () => {
    const text =
      'id: 7\r\nevent: x\r\ndata: first\r\ndata: second\r\n\r\n: keep-alive\r\n\r\ndata: z\r\n\r\n';
    const expected = [
      { type: 'x', data: 'first\nsecond', id: '7' },
      { type: 'message', data: 'z', id: '7' },
    ];
    for (const pieces of splits(text)) expect(parse(...pieces)).toEqual(expected);
  });

  it('does not read a CR at the end of one piece and an LF opening the next as two line ends', () => {
    expect(parse('data: a\r', '\ndata: b\r', '\n\r', '\n')).toEqual([
      { type: 'message', data: 'a\nb', id: '' },
    ]);
  });

  it('ignores comments, unknown fields and events without data', () => {
    expect(
      parse(': hello\n\nevent: lonely\n\nfoo: bar\ndata: kept\n:comment\n\n', 'event\n\n'),
    ).toEqual([{ type: 'message', data: 'kept', id: '' }]);
  });

  it('removes exactly one space after the colon and treats a bare field name as empty', () => {
    expect(parse('data:no-space\n\ndata:  two-spaces\n\ndata\ndata\n\n')).toEqual([
      { type: 'message', data: 'no-space', id: '' },
      { type: 'message', data: ' two-spaces', id: '' },
      { type: 'message', data: '\n', id: '' },
    ]);
  });

  it('keeps the last event id across events, ignores ids with NUL, and resets the type', () => {
    expect(
      parse('event: e\nid: 1\ndata: a\n\ndata: b\n\nid: 2\u0000\ndata: c\n\nid\ndata: d\n\n'),
    ).toEqual([
      { type: 'e', data: 'a', id: '1' },
      { type: 'message', data: 'b', id: '1' },
      { type: 'message', data: 'c', id: '1' },
      { type: 'message', data: 'd', id: '' },
    ]);
  });

  it('reads retry when it is all digits', () => {
    const parser = new SseParser();
    parser.push('retry: 1500\n\nretry: soon\n\n');
    expect(parser.retry).toBe(1500);
  });

  it('strips a leading BOM once and drops an event the stream cut off', () => {
    expect(parse('\uFEFFdata: a\n\n', 'data: never dispatched\n')).toEqual([
      { type: 'message', data: 'a', id: '' },
    ]);
    expect(parse('data: a\n\n\uFEFFdata: b\n\n')).toEqual([{ type: 'message', data: 'a', id: '' }]);
  });

  it('decodes a byte stream whose reads split a multi-byte character', async () => {
    const bytes = new TextEncoder().encode(
      'id: 0\ndata: {"text":"Grüße ✓"}\n\n: ping\n\nid: 1\ndata: x\n\n',
    );
    const parts = Array.from({ length: bytes.length }, (_, at) => bytes.slice(at, at + 1));
    const events: SseEvent[] = [];
    for await (const event of readSseEvents(bytesStream(parts))) events.push(event);
    expect(events).toEqual([
      { type: 'message', data: '{"text":"Grüße ✓"}', id: '0' },
      { type: 'message', data: 'x', id: '1' },
    ]);
  });

  it('cancels the body when the reader stops early', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('data: tick\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of readSseEvents(body)) {
      expect(event.data).toBe('tick');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
