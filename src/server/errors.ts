import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { TollgateError } from '../common/errors.js';
import { statusOfErrorCode, type ErrorBody } from '../common/http-api.js';

/** An error the server itself answers with: bad request, unknown route, missing token. */
export class HttpError extends Error {
  override readonly name = 'HttpError';

  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly fields?: string[],
  ) {
    super(message);
  }
}

/** Receives errors the server hides from callers (answered as `INTERNAL`), for the server's log. */
export type ErrorLogger = (error: unknown, where: string) => void;

export const consoleErrorLogger: ErrorLogger = (error, where) =>
  console.error(`[tollgate] ${where} failed:`, error);

/** Status and body of the answer to `error`, never carrying a stack trace. */
export interface ErrorAnswer {
  status: ContentfulStatusCode;
  body: ErrorBody;
}

/**
 * Maps a thrown error to its HTTP answer. Tollgate errors a caller can act on keep their code and
 * message; anything else is logged and answered as a bare `INTERNAL`, so internals never leak.
 */
export function errorAnswer(error: unknown, log: ErrorLogger, where: string): ErrorAnswer {
  if (error instanceof HttpError) {
    const { status, code, message, fields } = error;
    return { status, body: { error: { code, message, ...(fields ? { fields } : {}) } } };
  }
  if (error instanceof TollgateError) {
    const status = statusOfErrorCode(error.code);
    if (status !== 500) {
      return {
        status: status as ContentfulStatusCode,
        body: { error: { code: error.code, message: error.message } },
      };
    }
  }
  if (error instanceof HTTPException && error.status < 500) {
    const code = error.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST';
    return {
      status: error.status as ContentfulStatusCode,
      body: { error: { code, message: error.message || 'Bad request.' } },
    };
  }
  log(error, where);
  return { status: 500, body: { error: { code: 'INTERNAL', message: 'Internal error' } } };
}

/**
 * `answer()`, or the JSON error answer (`errorAnswer`) of what it throws: how a fetch-style
 * handler (`chatHandler`, `agUiHandler`) answers a request it refuses before any stream began.
 */
export async function answeringErrors(
  log: ErrorLogger,
  where: string,
  answer: () => Promise<Response>,
): Promise<Response> {
  try {
    return await answer();
  } catch (error) {
    const { status, body } = errorAnswer(error, log, where);
    return Response.json(body, { status });
  }
}
