/** The HTTP API's SSE framing (docs/http-api.md): response headers and event names. */

/**
 * SSE framing: each chunk is one event `id: <chunk offset>` / `data: <Chunk JSON>`. A failure
 * after the stream began is one `event: error` with an `ErrorBody`. The response header
 * `x-tollgate-run-id` names the run before the first chunk.
 */
export const RUN_ID_HEADER = 'x-tollgate-run-id';

/** Response header of SSE routes: the chunk-log offset of the stream's first chunk. */
export const START_OFFSET_HEADER = 'x-tollgate-start-offset';

/**
 * Response header of a streaming approve that gave a grant (docs/grant-release.md): `1` when
 * the stream's first event is `event: grant-release` with the release report as its data.
 */
export const GRANT_RELEASE_HEADER = 'x-tollgate-grant-release';

/** The SSE event name of a streaming approve's release report: before every chunk. */
export const GRANT_RELEASE_EVENT = 'grant-release';
