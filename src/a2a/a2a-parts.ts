/** A2A message parts and messages as plain objects (the SDK's protobuf-shaped types). */
import { Role, type Message, type Part } from '@a2a-js/sdk';
import type { JsonValue } from '../common/json.js';

export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

export function dataPart(value: JsonValue): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

/** A message; `taskId` and `contextId` empty for one that opens a task. */
export function messageOf(
  role: 'user' | 'agent',
  ids: { messageId: string; taskId: string; contextId: string },
  parts: Part[],
): Message {
  const sender = role === 'user' ? Role.ROLE_USER : Role.ROLE_AGENT;
  return { ...ids, role: sender, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** The text parts of `parts`, joined by newlines, and their data parts' values. */
export function contentOf(parts: Part[]): { text: string; data: JsonValue[] } {
  const text: string[] = [];
  const data: JsonValue[] = [];
  for (const part of parts) {
    if (part.content?.$case === 'text') text.push(part.content.value);
    if (part.content?.$case === 'data') data.push(part.content.value as JsonValue);
  }
  return { text: text.join('\n'), data };
}
