/**
 * Limits on what callers may send, shared by the SDK's option checks and the HTTP schemas so
 * both refuse the same values. Dependency-free and browser-safe.
 */

/** Longest id accepted (thread, resource, tool call, agent, fingerprint), in characters. */
export const MAX_ID_LENGTH = 256;

/** Deepest nesting of arrays and objects accepted in a JSON request body. */
export const MAX_JSON_DEPTH = 64;

/** Earliest and latest instants a date filter may name: what Temporal's visibility can parse. */
export const EARLIEST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
export const LATEST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** C0 and C1 control characters (NUL included): never part of an id. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * What is wrong with `value` as an id named `field`, as one sentence, or `undefined` when it is
 * a valid id: a non-empty string of at most `MAX_ID_LENGTH` characters without control characters.
 */
export function idProblem(value: unknown, field: string): string | undefined {
  if (typeof value !== 'string' || value === '') {
    return `${field} must be a non-empty string.`;
  }
  if (value.length > MAX_ID_LENGTH) {
    return `${field} is ${value.length} characters long; use at most ${MAX_ID_LENGTH}.`;
  }
  if (CONTROL_CHARACTER.test(value)) {
    return `${field} contains a control character (such as NUL); remove it.`;
  }
  return undefined;
}

/** What is wrong with `date` as a date filter named `field`, or `undefined` when it is usable. */
export function instantProblem(date: unknown, field: string): string | undefined {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    return `${field} must be a valid date.`;
  }
  const time = date.getTime();
  if (time < EARLIEST_INSTANT || time > LATEST_INSTANT) {
    return `${field} ${date.toISOString()} is out of range; use a date from year 1 to 9999.`;
  }
  return undefined;
}

/**
 * How deeply `value` nests arrays and objects, counted iteratively (a body nested thousands of
 * levels deep must not overflow the stack); stops counting once past `limit`.
 */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > limit) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

/**
 * Largest tool result (or `suspend()` payload) a tool attempt completes with, bytes of JSON: well
 * under Temporal's default blob size limit (`limit.blobSize.error`, 2 MiB), so the result also
 * fits in the next model step's input next to the rest of the step. A larger result would be
 * refused by the server at completion, and the call retried after its heartbeat timeout.
 */
export const MAX_TOOL_RESULT_BYTES = 1_000_000;
