/**
 * The AI SDK tool-result part the model reads for a call's outcome, JSON-safe and sandbox-safe:
 * built the same way by the workflow (`workflows/tool-results.ts`) and by a local stretch, whose
 * next model step must see exactly the conversation the workflow records.
 */
import type { ToolCallRef } from './chunks.js';
import type { JsonValue } from './json.js';

/** An AI SDK tool-result part, JSON-safe. */
export type ToolResultPart = {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: { type: 'json' | 'text' | 'error-text'; value: JsonValue };
};

export function toolResultPart(
  call: Pick<ToolCallRef, 'toolCallId' | 'toolName'>,
  type: ToolResultPart['output']['type'],
  value: JsonValue,
): ToolResultPart {
  return {
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: { type, value },
  };
}

/** A tool's result as the model reads it: a string as text, anything else as JSON. */
export function resultPart(call: ToolCallRef, result: JsonValue): ToolResultPart {
  return toolResultPart(call, typeof result === 'string' ? 'text' : 'json', result);
}

/** A failed call as the model reads it. */
export function errorPart(call: ToolCallRef, error: string): ToolResultPart {
  return toolResultPart(call, 'error-text', error);
}
