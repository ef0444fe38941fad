import type { JsonValue } from '../../common/json.js';

/** A part of a model message (AI SDK), as far as the rebuilt pages read it. */
export interface ModelPart {
  type?: string;
  text?: string;
  toolCallId?: string;
  toolName?: string;
  input?: JsonValue;
  args?: JsonValue;
  output?: { type?: string; value?: JsonValue };
}

/** A model message's role and parts; string content is one text part. */
export function modelMessageOf(raw: JsonValue): { role?: string; parts: ModelPart[] } {
  const { role, content } = (raw ?? {}) as { role?: string; content?: unknown };
  const parts: ModelPart[] =
    typeof content === 'string'
      ? [{ type: 'text', text: content }]
      : Array.isArray(content)
        ? (content as ModelPart[])
        : [];
  return { ...(role !== undefined ? { role } : {}), parts };
}

/**
 * The ids of rebuilt messages: the id a message was given, once; a message without one, or
 * whose id was used already (a client that sent one twice), gets `<prefix>-<position>`.
 */
export class MessageIds {
  private readonly used = new Set<string>();

  constructor(private readonly prefix: string) {}

  /** The id of the message at `position`, taken. */
  take(given: string | undefined, position: number): string {
    const id = this.peek(given, position);
    this.used.add(id);
    return id;
  }

  /** The id `take` would give, left free. */
  peek(given: string | undefined, position: number): string {
    return given !== undefined && !this.used.has(given) ? given : `${this.prefix}-${position}`;
  }
}
