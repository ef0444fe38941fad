import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { AgentStream } from '../client/agent-stream.js';
import { RUN_ID_HEADER, START_OFFSET_HEADER } from '../common/http-api.js';
import { errorAnswer, type ErrorLogger } from './errors.js';

/** A comment line every so often keeps proxies and browsers from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;

/**
 * Answers with the stream's chunks as Server-Sent Events: `id: <chunk offset>` and
 * `data: <chunk JSON>` each. Headers name the run and the first offset before any chunk. A
 * failure after the headers went out becomes one `event: error` carrying an `ErrorBody`. When
 * the client goes away the response stops reading the run.
 */
export function sseResponse(c: Context, stream: AgentStream, log: ErrorLogger): Response {
  c.header(RUN_ID_HEADER, stream.runId);
  c.header(START_OFFSET_HEADER, String(stream.startOffset));
  // Reverse proxies such as nginx would otherwise hold chunks back.
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (sse) => {
    const disconnected = () => sse.abort();
    c.req.raw.signal.addEventListener('abort', disconnected);
    const keepAlive = setInterval(() => void sse.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    try {
      let offset = stream.startOffset;
      for await (const chunk of untilAborted(stream.fullStream, sse)) {
        // One `data` line is enough: JSON.stringify escapes every CR and LF inside strings.
        await sse.write(`id: ${offset++}\ndata: ${JSON.stringify(chunk)}\n\n`);
      }
    } catch (error) {
      const { body } = errorAnswer(error, log, `stream of run ${stream.runId}`);
      if (!sse.aborted) await sse.write(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
    } finally {
      clearInterval(keepAlive);
      c.req.raw.signal.removeEventListener('abort', disconnected);
    }
  });
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
