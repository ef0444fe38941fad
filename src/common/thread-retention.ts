import type { JsonValue } from './json.js';

/** Default byte budget of a memory thread: half of Temporal's default 2 MiB payload limit. */
export const DEFAULT_THREAD_MAX_BYTES = 1024 * 1024;

/** What a thread keeps: the newest messages that fit both bounds. */
export interface RetentionRule {
  /** Most messages kept. */
  maxMessages: number;
  /** Most bytes kept, counted as the UTF-8 length of each message's JSON. */
  maxBytes: number;
}

/**
 * UTF-8 length of a value's JSON, the size Temporal's JSON payload converter gives it. Counted by
 * hand so workflow code needs no encoder.
 */
export function jsonByteLength(value: JsonValue): number {
  const text = JSON.stringify(value);
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    // A surrogate pair is 4 bytes in UTF-8: 2 for each half. A lone half becomes U+FFFD (3).
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** The newest messages that fit the rule: the oldest are dropped first. */
export function retainedMessages(messages: JsonValue[], rule: RetentionRule): JsonValue[] {
  let start = messages.length;
  let bytes = 0;
  while (start > 0 && messages.length - start < rule.maxMessages) {
    const size = jsonByteLength(messages[start - 1]!);
    if (bytes + size > rule.maxBytes) break;
    bytes += size;
    start--;
  }
  return start === 0 ? messages : messages.slice(start);
}
