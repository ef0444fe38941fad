import { describe, expect, it } from '@jest/globals';
import {
  idProblem,
  instantProblem,
  jsonDepthExceeds,
  MAX_ID_LENGTH,
  MAX_JSON_DEPTH,
} from '../../src/common/limits.js';

/** `levels` arrays inside each other around `inner`, built without recursion. */
function nestedArrays(levels: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let level = 0; level < levels; level++) value = [value];
  return value;
}

describe('request limits', () => {
  it('accepts ids up to the limit and names the field, the length and the limit otherwise', () => {
    expect(idProblem('thread-1', 'memory.thread')).toBeUndefined();
    expect(idProblem('é'.repeat(MAX_ID_LENGTH), 'memory.thread')).toBeUndefined();
    expect(idProblem('t'.repeat(5000), 'memory.thread')).toBe(
      `memory.thread is 5000 characters long; use at most ${MAX_ID_LENGTH}.`,
    );
    expect(idProblem('', 'toolCallId')).toBe('toolCallId must be a non-empty string.');
    expect(idProblem(7, 'toolCallId')).toBe('toolCallId must be a non-empty string.');
  });

  it('refuses ids with control characters: NUL, line breaks, DEL, C1', () => {
    for (const bad of ['a\u0000b', 'a\nb', 'a\tb', 'a\u007fb', 'a\u0085b']) {
      expect([bad, idProblem(bad, 'runId')]).toEqual([bad, expect.stringContaining('control')]);
    }
  });

  it('accepts dates of years 1 to 9999 only', () => {
    expect(instantProblem(new Date('2026-01-01T00:00:00Z'), 'toDate')).toBeUndefined();
    expect(instantProblem(new Date('9999-12-31T23:59:59.999Z'), 'toDate')).toBeUndefined();
    expect(instantProblem(new Date('0001-01-01T00:00:00Z'), 'fromDate')).toBeUndefined();
    expect(instantProblem(new Date('-271821-04-20T00:00:00Z'), 'toDate')).toContain(
      'toDate -271821-04-20T00:00:00.000Z is out of range',
    );
    expect(instantProblem(new Date('+010000-01-01T00:00:00Z'), 'toDate')).toContain('out of range');
    expect(instantProblem(new Date(Number.NaN), 'toDate')).toBe('toDate must be a valid date.');
  });

  it('measures nesting up to the limit, without recursion', () => {
    expect(jsonDepthExceeds(nestedArrays(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonDepthExceeds(nestedArrays(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    // Object, array, object, then the arrays of `b`.
    expect(jsonDepthExceeds({ a: [1, { b: nestedArrays(1) }] }, 4)).toBe(false);
    expect(jsonDepthExceeds({ a: [1, { b: nestedArrays(2) }] }, 4)).toBe(true);
    expect(jsonDepthExceeds('text', 0)).toBe(false);
    // Deep enough to overflow any recursive walk.
    expect(jsonDepthExceeds(nestedArrays(200_000), MAX_JSON_DEPTH)).toBe(true);
  });
});
