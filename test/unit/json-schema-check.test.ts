import { describe, expect, it } from '@jest/globals';
import { validateAgainstSchema } from '../../src/workflows/json-schema-check.js';

const schema = (value: unknown) => JSON.stringify(value);

describe('the workflow-side JSON Schema check (pure, no server)', () => {
  it('accepts a value that fits, and names the first problem of one that does not', () => {
    const s = schema({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2 },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['name'],
      additionalProperties: false,
    });
    expect(validateAgainstSchema(s, { name: 'ok', tags: ['a'] })).toBeUndefined();
    expect(validateAgainstSchema(s, {})).toBe('resumeData.name is required');
    expect(validateAgainstSchema(s, { name: 'x' })).toBe(
      'resumeData.name must have at least 2 characters',
    );
    expect(validateAgainstSchema(s, { name: 'ok', tags: [1] })).toBe(
      'resumeData.tags[0] must be string, not number',
    );
    expect(validateAgainstSchema(s, { name: 'ok', extra: 1 })).toBe(
      'resumeData.extra is not allowed',
    );
  });

  it('checks enums, consts, bounds and unions', () => {
    expect(validateAgainstSchema(schema({ enum: ['a', 'b'] }), 'c')).toBe(
      'resumeData must be one of "a", "b"',
    );
    expect(validateAgainstSchema(schema({ const: 1 }), 2)).toBe('resumeData must be 1');
    expect(validateAgainstSchema(schema({ type: 'number', maximum: 3 }), 4)).toBe(
      'resumeData must be at most 3',
    );
    expect(
      validateAgainstSchema(schema({ anyOf: [{ type: 'string' }, { type: 'number' }] }), true),
    ).toBe('resumeData matches none of the allowed shapes');
    expect(
      validateAgainstSchema(schema({ anyOf: [{ type: 'string' }, { type: 'number' }] }), 7),
    ).toBeUndefined();
  });

  it('names the root it was given and reports a schema that is not JSON', () => {
    expect(validateAgainstSchema(schema({ type: 'string' }), 1, 'args')).toBe(
      'args must be string, not number',
    );
    expect(validateAgainstSchema('{not json', 1)).toBe(
      'the schema of resumeData is not valid JSON',
    );
  });
});
