import type { Context } from 'hono';
import type { z } from 'zod';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../common/limits.js';
import { HttpError } from './errors.js';

/**
 * Parses the request's JSON body with `schema`. Malformed JSON and shape errors are 400
 * `BAD_REQUEST` answers listing the failing field paths (`options.maxSteps`).
 */
export async function readBody<T>(c: Context, schema: z.ZodType<T>): Promise<T> {
  return parseBody(await c.req.text(), schema);
}

/** `readBody` of a body already read as text. */
export function parseBody<T>(text: string, schema: z.ZodType<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', 'The request body must be a JSON object.');
  }
  // Before the schema, whose checks recurse: a deep enough body would overflow the stack.
  if (jsonDepthExceeds(value, MAX_JSON_DEPTH)) {
    throw new HttpError(
      400,
      'BAD_REQUEST',
      `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; flatten it.`,
    );
  }
  return check(schema, value, 'request body');
}

/** Parses the query string with `schema` (each parameter's first value). */
export function readQuery<T>(c: Context, schema: z.ZodType<T>): T {
  return check(schema, c.req.query(), 'query string');
}

function check<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const fields = [...new Set(problems.map((p) => p.path).filter((path) => path !== ''))];
  const listed = problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ');
  throw new HttpError(400, 'BAD_REQUEST', `Invalid ${what}: ${listed}.`, fields);
}
