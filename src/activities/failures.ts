import { TollgateError } from '../common/errors.js';
import { tollgateFailure } from '../common/failure.js';
import { modelCallFailure } from './model-errors.js';

/**
 * Classifies an error at the activity boundary: a `TollgateError` is the user's to fix and fails
 * at once under its dotted type; a model provider's HTTP error is classified by its status
 * (`modelCallFailure`); anything else is left to the activity's retry policy.
 */
export function asActivityFailure(error: unknown): unknown {
  if (error instanceof TollgateError) {
    return tollgateFailure(error.code, error.message, { cause: error });
  }
  return modelCallFailure(error) ?? error;
}

/** Runs an activity body, classifying what it throws. */
export async function classified<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw asActivityFailure(error);
  }
}
