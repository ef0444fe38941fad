import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { AgentStream } from '../stream/agent-stream.js';
import type { StreamItem } from '../stream/stream-items.js';
import {
  GRANT_RELEASE_EVENT,
  GRANT_RELEASE_HEADER,
  RUN_ID_HEADER,
  START_OFFSET_HEADER,
} from '../common/http-api.js';
import { errorAnswer, type ErrorLogger } from './errors.js';

/** A comment line every so often keeps proxies and browsers from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;

/**
 * Answers with the stream's chunks as Server-Sent Events: `id: <chunk offset>` and
 * `data: <chunk JSON>` each for the log's chunks. Live text (when the server shares a worker)
 * goes as `event: live` with `data: {"at": <offset it is meant for>, "chunk": …}` and no id, so
 * plain EventSource readers see the log only. The outcome of a run ended from outside is a
 * `data:` error chunk without an id. Headers name the run and the first offset before any chunk.
 * An approve that released other calls with its grant sends the report first, as
 * `event: grant-release`, and says so in a header.
 * A failure after the headers went out becomes one `event: error` carrying an `ErrorBody`. When
 * the client goes away the response stops reading the run.
 */
export function sseResponse(c: Context, stream: AgentStream, log: ErrorLogger): Response {
  c.header(RUN_ID_HEADER, stream.runId);
  c.header(START_OFFSET_HEADER, String(stream.startOffset));
  const release = stream.grantRelease;
  if (release) c.header(GRANT_RELEASE_HEADER, '1');
  // Reverse proxies such as nginx would otherwise hold chunks back.
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (sse) => {
    const disconnected = () => sse.abort();
    c.req.raw.signal.addEventListener('abort', disconnected);
    const keepAlive = setInterval(() => void sse.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    try {
      if (release)
        await sse.write(`event: ${GRANT_RELEASE_EVENT}\ndata: ${JSON.stringify(release)}\n\n`);
      for await (const item of untilAborted(stream.items, sse)) await sse.write(sseEvent(item));
    } catch (error) {
      const { body } = errorAnswer(error, log, `stream of run ${stream.runId}`);
      if (!sse.aborted) await sse.write(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
    } finally {
      clearInterval(keepAlive);
      c.req.raw.signal.removeEventListener('abort', disconnected);
    }
  });
}

/** One SSE event; one `data` line is enough: JSON.stringify escapes every CR and LF in strings. */
function sseEvent({ chunk, offset, live }: StreamItem): string {
  if (live !== undefined) return `event: live\ndata: ${JSON.stringify({ at: live, chunk })}\n\n`;
  const id = offset !== undefined ? `id: ${offset}\n` : '';
  return `${id}data: ${JSON.stringify(chunk)}\n\n`;
}

/**
 * Yields from `source` until the response is aborted. A read that is still waiting for the run
 * is abandoned rather than awaited, so a gone client releases the response at once.
 */
async function* untilAborted<T>(source: AsyncIterable<T>, sse: SSEStreamingApi): AsyncGenerator<T> {
  if (sse.aborted) return;
  const aborted = new Promise<'aborted'>((resolve) => sse.onAbort(() => resolve('aborted')));
  const iterator = source[Symbol.asyncIterator]();
  for (;;) {
    const next = await Promise.race([iterator.next(), aborted]);
    if (next === 'aborted' || next.done === true) return;
    yield next.value;
  }
}
