import type { JsonValue } from '../../common/json.js';

/**
 * The ids a chat shows for a user message and for the assistant message that answers it: the
 * user message keeps the id `useChat` gave it, the answer is the run's id. They travel in the
 * user's model message itself (`providerOptions.tollgate`, which no model provider reads), so the
 * thread keeps them and a reload shows the ids the live response used.
 */
export interface ChatMessageIds {
  messageId: string;
  replyId: string;
}

/** The model message a chat sends for the user's `text`, carrying its ids. */
export function userMessageOf(text: string, ids: ChatMessageIds): JsonValue {
  return { role: 'user', content: text, providerOptions: { tollgate: { ...ids } } };
}

/** The ids a model message carries; none for one a chat did not send (SDK, CLI, older runs). */
export function idsIn(message: JsonValue): Partial<ChatMessageIds> {
  const ids = (message as { providerOptions?: { tollgate?: Record<string, unknown> } })
    ?.providerOptions?.tollgate;
  const { messageId, replyId } = ids ?? {};
  return {
    ...(typeof messageId === 'string' ? { messageId } : {}),
    ...(typeof replyId === 'string' ? { replyId } : {}),
  };
}
