import type { ErrorBody } from '../common/http-api.js';

/**
 * An error answer of the Tollgate server: `code` is the `ErrorBody` code (a `TollgateError` code
 * such as `FINGERPRINT_MISMATCH`, or `BAD_REQUEST`, `UNAUTHORIZED`, `NOT_FOUND`, ...), `status`
 * the HTTP status (for an error inside a stream, the status its code maps to).
 */
export class TollgateHttpError extends Error {
  override readonly name = 'TollgateHttpError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** For `BAD_REQUEST`: the failing field paths, e.g. `options.maxSteps`. */
    readonly fields?: string[],
  ) {
    super(message);
  }

  /** Builds the error from an `ErrorBody`, or from whatever else a proxy may have answered. */
  static from(status: number, body: unknown, fallback: string): TollgateHttpError {
    const error = (body as Partial<ErrorBody> | null)?.error;
    if (typeof error?.code === 'string' && typeof error.message === 'string') {
      const fields = Array.isArray(error.fields)
        ? error.fields.filter((f): f is string => typeof f === 'string')
        : undefined;
      return new TollgateHttpError(status, error.code, error.message, fields);
    }
    return new TollgateHttpError(status, `HTTP_${status}`, fallback);
  }
}

/** True when `error` is a `TollgateHttpError`, with `code` if given. */
export function isTollgateHttpError(error: unknown, code?: string): error is TollgateHttpError {
  return error instanceof TollgateHttpError && (code === undefined || error.code === code);
}
