/**
 * A model step's text travels once, inside its response messages; the step's output carries only
 * the lengths of its live deltas, so the workflow can emit the same text-delta chunks. Workflow-safe.
 */
import type { JsonValue } from './json.js';
import type { ModelStepOutput } from './run-types.js';

/** The text of a step's response messages: every text part of the assistant's turn, in order. */
export function responseText(messages: readonly JsonValue[]): string {
  let text = '';
  for (const message of messages) {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) continue;
    if (message.role !== 'assistant') continue;
    const content = message.content;
    if (typeof content === 'string') text += content;
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (typeof part !== 'object' || part === null || Array.isArray(part)) continue;
        if (part.type === 'text' && typeof part.text === 'string') text += part.text;
      }
    }
  }
  return text;
}

/**
 * The step's text deltas: written out by older workers (and when the deltas do not match the
 * response text), else cut from the response text by their lengths.
 */
export function stepTextDeltas(output: ModelStepOutput): string[] {
  if (output.textDeltas) return output.textDeltas;
  const text = responseText(output.responseMessages);
  const deltas: string[] = [];
  let at = 0;
  for (const length of output.textDeltaLengths ?? []) {
    deltas.push(text.slice(at, at + length));
    at += length;
  }
  return deltas;
}

/** How a step reports its deltas: by length when they join to the response text, else written out. */
export function textDeltasField(
  deltas: string[],
  responseMessages: readonly JsonValue[],
): Pick<ModelStepOutput, 'textDeltas' | 'textDeltaLengths'> {
  return deltas.join('') === responseText(responseMessages)
    ? { textDeltaLengths: deltas.map((delta) => delta.length) }
    : { textDeltas: deltas };
}
