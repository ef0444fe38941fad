import type { ApplicationFailure } from '@temporalio/common';
import { APICallError, RetryError } from 'ai';
import { tollgateFailure } from '../common/failure.js';

/** HTTP statuses a provider answers when trying again later can succeed. */
const RETRYABLE_STATUS = new Set([408, 409, 429]);

/** The longest `retry-after` honoured; longer waits use the activity's own backoff. */
const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** How much of the provider's message a failure quotes. */
const MAX_MESSAGE_CHARS = 300;

/**
 * Classifies a model provider's HTTP error by status: 408, 409, 429 and 5xx are retried (after the
 * provider's `retry-after-ms` / `retry-after` when given); any other 4xx (bad request, bad key,
 * no access, no such model) fails at once, since sending the same request again cannot help.
 * Anything that is not a provider HTTP error gives `undefined`.
 */
export function modelCallFailure(error: unknown): ApplicationFailure | undefined {
  const apiError = apiCallErrorOf(error);
  const status = apiError?.statusCode;
  if (!apiError || status === undefined) return undefined;
  const said = providerMessage(apiError.message);
  if (status >= 500 || RETRYABLE_STATUS.has(status)) {
    const delay = retryAfterMs(apiError.responseHeaders ?? {});
    return tollgateFailure(
      'MODEL_UNAVAILABLE',
      `The model provider answered HTTP ${status} (${said}); the step is retried${delay !== undefined ? ` after ${delay} ms as the provider asked` : ''}.`,
      {
        nonRetryable: false,
        ...(delay !== undefined ? { nextRetryDelay: delay } : {}),
        cause: apiError,
      },
    );
  }
  return tollgateFailure(
    'MODEL_REQUEST_REJECTED',
    `The model provider rejected the request with HTTP ${status} (${said}); check the model's API key, access and model id — retrying the same request cannot succeed.`,
    { cause: apiError },
  );
}

function apiCallErrorOf(error: unknown): APICallError | undefined {
  if (APICallError.isInstance(error)) return error;
  // With retries inside the SDK (not ours: `maxRetries: 0`), the last attempt's error is wrapped.
  if (RetryError.isInstance(error) && APICallError.isInstance(error.lastError))
    return error.lastError;
  return undefined;
}

/** One line of the provider's own message, cut short; the request body (the prompt) is never quoted. */
function providerMessage(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > MAX_MESSAGE_CHARS ? `${line.slice(0, MAX_MESSAGE_CHARS - 1)}…` : line;
}

/** The delay a provider asked for, ms: `retry-after-ms`, else `retry-after` (seconds or a date). */
export function retryAfterMs(headers: Record<string, string>): number | undefined {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  let ms: number | undefined;
  const millis = lower['retry-after-ms'];
  if (millis !== undefined && millis.trim() !== '') ms = Number(millis);
  const after = lower['retry-after'];
  if ((ms === undefined || Number.isNaN(ms)) && after !== undefined && after.trim() !== '') {
    const seconds = Number(after);
    ms = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  }
  if (ms === undefined || Number.isNaN(ms) || ms < 0 || ms > MAX_RETRY_AFTER_MS) return undefined;
  return Math.ceil(ms);
}
