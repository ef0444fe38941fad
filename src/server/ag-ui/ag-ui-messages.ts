import type { Message } from '@ag-ui/core';
import type { JsonValue } from '../../common/json.js';
import { idsIn } from '../chat/message-ids.js';
import { MessageIds, modelMessageOf } from '../chat/model-parts.js';

/**
 * A thread's model messages (the thread's, then its open run's) as AG-UI messages, for the
 * MESSAGES_SNAPSHOT that resynchronises a front-end which reloaded: user text (with the id the
 * client gave it), one assistant message per model step with its text and tool calls, and one
 * tool message per result, with the id the live TOOL_CALL_RESULT used (`<toolCallId>:result`).
 * Other ids are `<threadId>-<n>` by position: the snapshot replaces the client's messages.
 */
export function agUiMessagesOf(threadId: string, messages: JsonValue[]): Message[] {
  const out: Message[] = [];
  const ids = new MessageIds(threadId);
  const idOf = (given: string | undefined) => ids.take(given, out.length);
  for (const raw of messages) {
    const { role, parts } = modelMessageOf(raw);
    const text = parts.flatMap((p) => (p.type === 'text' && p.text ? [p.text] : [])).join('');
    if (role === 'user') {
      out.push({ id: idOf(idsIn(raw).messageId), role: 'user', content: text });
    } else if (role === 'assistant') {
      const toolCalls = parts.flatMap((p) =>
        p.type === 'tool-call' && p.toolCallId && p.toolName
          ? [
              {
                id: p.toolCallId,
                type: 'function' as const,
                function: { name: p.toolName, arguments: JSON.stringify(p.input ?? p.args ?? {}) },
              },
            ]
          : [],
      );
      out.push({
        id: idOf(undefined),
        role: 'assistant',
        ...(text !== '' ? { content: text } : {}),
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      });
    } else if (role === 'tool') {
      for (const part of parts) {
        if (part.type !== 'tool-result' || !part.toolCallId) continue;
        const value = part.output?.value ?? null;
        const shown = typeof value === 'string' ? value : JSON.stringify(value);
        const failed = part.output?.type === 'error-text' || part.output?.type === 'error-json';
        out.push({
          id: idOf(`${part.toolCallId}:result`),
          role: 'tool',
          toolCallId: part.toolCallId,
          content: shown,
          ...(failed ? { error: shown } : {}),
        });
      }
    }
  }
  return out;
}
