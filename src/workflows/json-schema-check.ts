import type { JsonValue } from '../common/json.js';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: JsonValue[];
  const?: JsonValue;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
};

/**
 * Checks a value against the JSON Schema subset that zod emits for plain data (types, properties,
 * required, enums, bounds, unions). Runs inside the workflow so bad resume data is refused by the
 * update validator, before anything reaches history. Returns the first problem, or undefined.
 */
export function validateAgainstSchema(
  schemaJson: string,
  value: JsonValue,
  root = 'resumeData',
): string | undefined {
  let schema: Schema;
  try {
    schema = JSON.parse(schemaJson) as Schema;
  } catch {
    return `the schema of ${root} is not valid JSON`;
  }
  return check(schema, value, root);
}

function check(schema: Schema, value: JsonValue, path: string): string | undefined {
  if (schema.const !== undefined && JSON.stringify(schema.const) !== JSON.stringify(value)) {
    return `${path} must be ${JSON.stringify(schema.const)}`;
  }
  if (
    schema.enum &&
    !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))
  ) {
    return `${path} must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(', ')}`;
  }
  const union = schema.anyOf ?? schema.oneOf;
  if (union && union.every((option) => check(option, value, path) !== undefined)) {
    return `${path} matches none of the allowed shapes`;
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => hasType(value, type)))
      return `${path} must be ${types.join(' or ')}, not ${typeName(value)}`;
  }
  if (typeof value === 'string') return checkString(schema, value, path);
  if (typeof value === 'number') return checkNumber(schema, value, path);
  if (Array.isArray(value)) return checkArray(schema, value, path);
  if (value !== null && typeof value === 'object') return checkObject(schema, value, path);
  return undefined;
}

function checkString(schema: Schema, value: string, path: string): string | undefined {
  if (schema.minLength !== undefined && value.length < schema.minLength)
    return `${path} must have at least ${schema.minLength} characters`;
  if (schema.maxLength !== undefined && value.length > schema.maxLength)
    return `${path} must have at most ${schema.maxLength} characters`;
  return undefined;
}

function checkNumber(schema: Schema, value: number, path: string): string | undefined {
  if (schema.minimum !== undefined && value < schema.minimum)
    return `${path} must be at least ${schema.minimum}`;
  if (schema.maximum !== undefined && value > schema.maximum)
    return `${path} must be at most ${schema.maximum}`;
  return undefined;
}

function checkArray(schema: Schema, value: JsonValue[], path: string): string | undefined {
  if (schema.minItems !== undefined && value.length < schema.minItems)
    return `${path} must have at least ${schema.minItems} items`;
  if (schema.maxItems !== undefined && value.length > schema.maxItems)
    return `${path} must have at most ${schema.maxItems} items`;
  if (!schema.items) return undefined;
  for (const [index, item] of value.entries()) {
    const problem = check(schema.items, item, `${path}[${index}]`);
    if (problem) return problem;
  }
  return undefined;
}

function checkObject(
  schema: Schema,
  value: { [key: string]: JsonValue },
  path: string,
): string | undefined {
  for (const key of schema.required ?? []) {
    if (!(key in value)) return `${path}.${key} is required`;
  }
  for (const [key, member] of Object.entries(value)) {
    const memberSchema = schema.properties?.[key];
    if (memberSchema) {
      const problem = check(memberSchema, member, `${path}.${key}`);
      if (problem) return problem;
    } else if (schema.additionalProperties === false) {
      return `${path}.${key} is not allowed`;
    } else if (typeof schema.additionalProperties === 'object') {
      const problem = check(schema.additionalProperties, member, `${path}.${key}`);
      if (problem) return problem;
    }
  }
  return undefined;
}

function hasType(value: JsonValue, type: string): boolean {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

function typeName(value: JsonValue): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}
