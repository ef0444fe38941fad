import { A2AError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { statusOfErrorCode } from '../../common/http-api.js';
import { TollgateError } from '../../common/errors.js';

/**
 * Runs an A2A call, turning what it throws into A2A errors: the JSON-RPC transport answers an
 * `A2AError` with its code and its `ErrorInfo` (whose `metadata.code` is the Tollgate code, so a
 * client tells refusals apart without reading their words), and anything else with its message,
 * which must not leak internals. `RUN_NOT_FOUND` is A2A's task-not-found; a refusal the caller
 * caused is invalid-params; an outage is an internal error that says what happened.
 */
export async function a2aErrors<T>(
  log: (error: unknown) => void,
  body: () => Promise<T>,
): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof A2AError) throw error;
    if (!(error instanceof TollgateError)) {
      log(error);
      throw new A2AError('Internal error; the server logged it.');
    }
    const options = { message: error.message, metadata: { code: error.code } };
    if (error.code === 'RUN_NOT_FOUND') throw new TaskNotFoundError(options);
    if (statusOfErrorCode(error.code) < 500) throw new RequestMalformedError(options);
    throw new A2AError(options);
  }
}

/** A stream whose failures reach the client as A2A errors, as a call's do (`a2aErrors`). */
export async function* a2aErrorsOf<T>(
  log: (error: unknown) => void,
  events: AsyncGenerator<T, void, undefined>,
): AsyncGenerator<T, void, undefined> {
  for (;;) {
    const next = await a2aErrors(log, () => events.next());
    if (next.done) return;
    yield next.value;
  }
}
