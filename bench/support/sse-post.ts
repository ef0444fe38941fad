/** The one bearer token the HTTP benchmarks give their Tollgate server. */
export const BENCH_TOKEN = 'bench-token-0123456789abcdef';

/**
 * POSTs `body` as JSON to `url` with `BENCH_TOKEN`, asking for a server-sent event stream; the
 * caller checks the status and reads the body (e.g. with `readSseEvents`).
 */
export function postForSse(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${BENCH_TOKEN}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: JSON.stringify(body),
  });
}
