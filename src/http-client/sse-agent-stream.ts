import { AgentStream, type PendingLookup } from '../stream/agent-stream.js';
import type { StreamItem } from '../stream/stream-items.js';
import type { Chunk } from '../common/chunks.js';
import {
  GRANT_RELEASE_EVENT,
  GRANT_RELEASE_HEADER,
  RUN_ID_HEADER,
  START_OFFSET_HEADER,
  statusOfErrorCode,
} from '../common/http-api.js';
import type { GrantRelease } from '../common/grant-types.js';
import { TollgateHttpError } from './http-error.js';
import { readSseEvents, type SseEvent } from './sse-parser.js';

/**
 * An `AgentStream` read from an SSE response of the server: the same promises and iterables as
 * in-process streams. An `event: error` in the stream rejects them with a `TollgateHttpError`.
 */
export async function agentStreamOf(
  response: Response,
  lookupPending: PendingLookup,
): Promise<AgentStream> {
  const runId = response.headers.get(RUN_ID_HEADER);
  const startOffset = Number(response.headers.get(START_OFFSET_HEADER) ?? '0');
  if (!runId || !response.body || !Number.isInteger(startOffset)) {
    throw new TollgateHttpError(
      response.status,
      'BAD_RESPONSE',
      `The server's answer is not a Tollgate stream (no ${RUN_ID_HEADER} header or no body).`,
    );
  }
  const events = readSseEvents(response.body);
  // A release report comes first when the header announces it: read before the stream is returned,
  // so `grantRelease` is there as in-process.
  let release: GrantRelease | undefined;
  let first: IteratorResult<SseEvent> | undefined;
  if (response.headers.get(GRANT_RELEASE_HEADER) === '1') {
    first = await events.next();
    if (!first.done && first.value.type === GRANT_RELEASE_EVENT) {
      release = JSON.parse(first.value.data) as GrantRelease;
      first = undefined;
    }
  }
  const stream = new AgentStream(runId, startOffset, itemsOf(events, first), lookupPending);
  if (release) stream.grantRelease = release;
  return stream;
}

/** The server's events as stream items (see `sseResponse`): an id marks a chunk of the log. */
async function* itemsOf(
  events: AsyncGenerator<SseEvent>,
  first: IteratorResult<SseEvent> | undefined,
): AsyncGenerator<StreamItem> {
  let lastId = '';
  for await (const event of withFirst(first, events)) {
    if (event.type === 'message') {
      const chunk = JSON.parse(event.data) as Chunk;
      // The parser keeps the last id for events without one: a new id is this event's own.
      const logged = event.id !== lastId && event.id !== '';
      lastId = event.id;
      yield logged ? { chunk, offset: Number(event.id) } : { chunk };
    }
    if (event.type === 'live') {
      const { at, chunk } = JSON.parse(event.data) as { at: number; chunk: Chunk };
      yield { chunk, live: at };
    }
    if (event.type === 'error') throw streamError(event.data);
  }
}

/** `events`, after the event read ahead of them (if any). */
async function* withFirst(
  first: IteratorResult<SseEvent> | undefined,
  events: AsyncGenerator<SseEvent>,
): AsyncGenerator<SseEvent> {
  if (first !== undefined) {
    if (first.done) return;
    yield first.value;
  }
  yield* events;
}

function streamError(data: string): TollgateHttpError {
  let body: unknown;
  try {
    body = JSON.parse(data) as unknown;
  } catch {
    body = undefined;
  }
  const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
  const status = typeof code === 'string' ? statusOfErrorCode(code) : 500;
  return TollgateHttpError.from(status, body, `The stream failed: ${data.slice(0, 200)}`);
}
