/**
 * The form that resumes a suspended call, generated from the tool's `resumeSchema` (JSON Schema,
 * as `z.toJSONSchema` writes it). An object's properties of type string, number, integer or
 * boolean, and enums, get native inputs (so the browser checks `required`, bounds and lengths);
 * any other property gets a JSON text box, and so does a schema that is not an object. The
 * server validates the data again and answers INVALID_RESUME_DATA when it does not fit.
 */
import { h } from './dom.js';

/**
 * @param {string} schemaText the call's `resumeSchema`
 * @param {string} id unique prefix for element ids
 * @param {(data: unknown) => void} onSubmit called with the resume data
 */
export function resumeForm(schemaText, id, onSubmit) {
  const schema = formSchema(parse(schemaText));
  const fields = isObjectSchema(schema)
    ? Object.entries(schema.properties).map(([name, property]) =>
        fieldFor(name, property, (schema.required ?? []).includes(name), `${id}-${safe(name)}`),
      )
    : [jsonField('Resume data', undefined, true, `${id}-data`, schema?.default)];
  const problem = h('p', { class: 'error', role: 'alert' });
  const form = h(
    'form',
    { class: 'resume-form' },
    h('fieldset', {}, h('legend', {}, 'Resume with'), ...fields.map((field) => field.element)),
    h('button', { type: 'submit', class: 'primary' }, 'Resume'),
    ...elicitationReplies(parse(schemaText), onSubmit),
    problem,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    problem.textContent = '';
    try {
      if (!isObjectSchema(schema)) return onSubmit(fields[0].read().value);
      const data = {};
      for (const field of fields) {
        const { present, value } = field.read();
        if (present) data[field.name] = value;
      }
      onSubmit(data);
    } catch (error) {
      problem.textContent = error instanceof Error ? error.message : String(error);
    }
  });
  return form;
}

/**
 * The reserved key of an MCP elicitation's decline or cancel reply (docs/mcp.md "Elicitation"):
 * such a call's schema is `anyOf: [<the server's form>, <the reply>]`; the form is the first.
 */
const REPLY_KEY = 'tollgate/elicitation';

function isElicitation(schema) {
  return Array.isArray(schema?.anyOf) && schema.anyOf[1]?.properties?.[REPLY_KEY] !== undefined;
}

function formSchema(schema) {
  return isElicitation(schema) ? schema.anyOf[0] : schema;
}

/** Decline and Cancel buttons of an MCP elicitation; none for other suspensions. */
function elicitationReplies(schema, onSubmit) {
  if (!isElicitation(schema)) return [];
  return ['decline', 'cancel'].map((action) => {
    const button = h('button', { type: 'button' }, action === 'decline' ? 'Decline' : 'Cancel');
    button.addEventListener('click', () => onSubmit({ [REPLY_KEY]: action }));
    return button;
  });
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObjectSchema(schema) {
  return (
    schema?.type === 'object' &&
    typeof schema.properties === 'object' &&
    schema.properties !== null &&
    !Array.isArray(schema.properties)
  );
}

/** One property: `{ name, element, read() → { present, value } }`. */
function fieldFor(name, schema, required, id) {
  // A subschema may also be `true` or `false` (anything, nothing): those get the JSON box.
  const property = typeof schema === 'object' && schema !== null ? schema : {};
  const label = typeof property.title === 'string' ? property.title : name;
  const choices = 'const' in property ? [property.const] : property.enum;
  if (Array.isArray(choices) && choices.length > 0) {
    return selectField(name, label, choices, required, id, property);
  }
  switch (property.type) {
    case 'string':
    case 'number':
    case 'integer':
      return inputField(name, label, property, required, id);
    case 'boolean':
      return checkboxField(name, label, property, id);
    default:
      return jsonField(label, name, required, id, property.default, property.description);
  }
}

function inputField(name, label, property, required, id) {
  const numeric = property.type !== 'string';
  const input = h('input', {
    id,
    name,
    type: numeric ? 'number' : 'text',
    ...(numeric ? { step: property.type === 'integer' ? '1' : 'any' } : { autocomplete: 'off' }),
    ...bounds(property),
    ...(required ? { required: '' } : {}),
  });
  if (property.default !== undefined) input.value = String(property.default);
  return {
    name,
    element: wrap(label, required, id, property.description, input),
    read: () => ({
      present: input.value !== '',
      value: numeric ? Number(input.value) : input.value,
    }),
  };
}

function bounds(property) {
  const pairs = {
    min: property.minimum,
    max: property.maximum,
    minlength: property.minLength,
    maxlength: property.maxLength,
  };
  return Object.fromEntries(
    Object.entries(pairs)
      .filter(([, value]) => typeof value === 'number')
      .map(([k, v]) => [k, String(v)]),
  );
}

function checkboxField(name, label, property, id) {
  const box = h('input', { id, name, type: 'checkbox' });
  box.checked = property.default === true;
  const element = h(
    'div',
    { class: 'field check' },
    box,
    h('label', { for: id }, label),
    ...hint(id, property.description, box),
  );
  return { name, element, read: () => ({ present: true, value: box.checked }) };
}

function selectField(name, label, choices, required, id, property) {
  const select = h(
    'select',
    { id, name, ...(required ? { required: '' } : {}) },
    h('option', { value: '' }, required ? 'Choose…' : '(none)'),
    ...choices.map((choice, index) =>
      h(
        'option',
        { value: String(index) },
        typeof choice === 'string' ? choice : JSON.stringify(choice),
      ),
    ),
  );
  const preset = choices.findIndex((choice) => choice === property.default);
  if (preset >= 0) select.value = String(preset);
  return {
    name,
    element: wrap(label, required, id, property.description, select),
    read: () => ({ present: select.value !== '', value: choices[Number(select.value)] }),
  };
}

function jsonField(label, name, required, id, preset, description) {
  const area = h('textarea', {
    id,
    name: name ?? 'data',
    rows: '4',
    spellcheck: 'false',
    class: 'json',
    ...(required ? { required: '' } : {}),
  });
  if (preset !== undefined) area.value = JSON.stringify(preset, null, 2);
  return {
    name,
    element: wrap(`${label} (JSON)`, required, id, description, area),
    read: () => {
      if (area.value.trim() === '' && !required) return { present: false, value: undefined };
      try {
        return { present: true, value: JSON.parse(area.value) };
      } catch (error) {
        area.focus();
        throw new Error(
          `${label}: not valid JSON (${error instanceof Error ? error.message : error}).`,
        );
      }
    },
  };
}

function wrap(label, required, id, description, control) {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label, required ? h('span', { class: 'required' }, ' (required)') : ''),
    control,
    ...hint(id, description, control),
  );
}

/** The schema's description, shown under the control and read with it by screen readers. */
function hint(id, description, control) {
  if (typeof description !== 'string' || description === '') return [];
  control.setAttribute('aria-describedby', `${id}-hint`);
  return [h('small', { id: `${id}-hint`, class: 'hint' }, description)];
}

/** A property name as part of an element id (ids tie labels and hints to controls). */
const safe = (name) => name.replace(/[^\w-]/g, '_');
