/**
 * Conversation compaction without a server: the built-in strategies and the check of a hook's
 * result (issue 13, finding 3).
 */
import { describe, expect, it } from '@jest/globals';
import type { ModelMessage } from 'ai';
import { checkCompaction } from '../../src/activities/compaction-check.js';
import { ConversationCache, wholeConversation } from '../../src/activities/conversation-cache.js';
import { jsonBytes } from '../../src/common/continued-run.js';
import type { JsonValue } from '../../src/common/json.js';
import {
  keepRecentMessages,
  splitConversation,
  summarizeOlderMessages,
  SUMMARY_PREFIX,
} from '../../src/definitions/compaction-strategies.js';
import { Agent, TollgateError } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';

/** The user's request, then `steps` steps of (assistant call, tool result). */
function conversation(steps: number, recalled: ModelMessage[] = []): ModelMessage[] {
  const messages: ModelMessage[] = [...recalled, { role: 'user', content: 'Count, please.' }];
  for (let i = 1; i <= steps; i++) {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: `c${i}`, toolName: 'count', input: { i } }],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `c${i}`,
          toolName: 'count',
          output: { type: 'json', value: { i, pad: 'x'.repeat(100) } },
        },
      ],
    });
  }
  return messages;
}

const infoOf = (messages: ModelMessage[], recalled = 0) => ({
  runId: 'run-1',
  agentId: 'agent-1',
  step: 1,
  bytes: jsonBytes(messages),
  recalled,
  maxBytes: 1_900_000,
});

const before = (messages: ModelMessage[], recalled = 0) => ({
  agentId: 'agent-1',
  messages: messages as unknown as JsonValue[],
  bytes: jsonBytes(messages),
  recalled,
  maxBytes: 1_900_000,
});

describe('keepRecentMessages', () => {
  it('keeps the first user message and the last messages, never a tool result without its call', async () => {
    const messages = conversation(10);
    // 5 would start the tail at a tool result: it starts after it instead.
    const kept = await keepRecentMessages(5)(messages, infoOf(messages));
    expect(kept[0]).toEqual(messages[0]);
    expect(kept.slice(1)).toEqual(messages.slice(-4));
    expect(kept[1]!.role).toBe('assistant');
    const checked = checkCompaction(before(messages), kept);
    expect(checked.messagesDropped).toBe(messages.length - 5);
  });

  it('keeps the recalled thread messages and the run’s own first user message', async () => {
    const recalled: ModelMessage[] = [
      { role: 'user', content: 'Earlier question' },
      { role: 'assistant', content: 'Earlier answer' },
    ];
    const messages = conversation(10, recalled);
    const kept = await keepRecentMessages(4)(messages, infoOf(messages, 2));
    expect(kept.slice(0, 3)).toEqual(messages.slice(0, 3));
    expect(checkCompaction(before(messages, 2), kept).recalled).toBe(2);
  });

  it('keeps at most half the bytes when a few messages are most of the conversation', () => {
    const messages = conversation(3);
    const split = splitConversation(messages, infoOf(messages), 100);
    expect(split.older.length).toBeGreaterThan(0);
    expect(jsonBytes(split.recent)).toBeLessThanOrEqual(jsonBytes(messages) / 2);
    expect(split.recent[0]?.role).not.toBe('tool');
  });

  it('refuses a negative keep', () => {
    expect(() => keepRecentMessages(-1)).toThrow(TollgateError);
  });
});

describe('summarizeOlderMessages', () => {
  it('asks the model to summarize the older messages and puts the summary between start and tail', async () => {
    const model = scriptedModel([{ text: 'Counted 1 to 8.' }], 'summarizer');
    const messages = conversation(10);
    const compacted = await summarizeOlderMessages({ model, keep: 4 })(messages, infoOf(messages));
    expect(compacted).toEqual([
      messages[0],
      { role: 'user', content: `${SUMMARY_PREFIX}Counted 1 to 8.` },
      ...messages.slice(-4),
    ]);
    // The model read the dropped messages, not the kept ones.
    const prompt = JSON.stringify(model.prompts[0]);
    expect(prompt).toContain('c1');
    expect(prompt).toContain('c8');
    expect(prompt).not.toContain('c9');
    expect(() => checkCompaction(before(messages), compacted)).not.toThrow();
  });
});

describe('checkCompaction', () => {
  const messages = conversation(6);
  const fails = (result: unknown, problem: RegExp) => {
    let error: unknown;
    try {
      checkCompaction(before(messages), result);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TollgateError);
    expect((error as TollgateError).code).toBe('INVALID_COMPACTION');
    expect((error as TollgateError).message).toMatch(problem);
  };

  it('refuses results that are not model messages', () => {
    fails(undefined, /non-empty array/);
    fails([], /non-empty array/);
    fails([{ role: 'robot', content: 'hi' }], /invalid model message at index 0/);
  });

  it('refuses a tool result without its call, and a call without its result', () => {
    fails(messages.slice(-1), /tool result \(c6, message 0\) without the call/);
    fails([messages[0], messages.at(-2)], /tool call \(c6\) without its result/);
  });

  it('refuses a result no smaller than the conversation, or over the carry limit', () => {
    fails([...messages, { role: 'user', content: 'more' }], /not fewer than/);
    expect(() =>
      checkCompaction({ ...before(messages), maxBytes: 10 }, messages.slice(0, 1)),
    ).toThrow(/over history.carryMaxBytes \(10\)/);
  });
});

describe('the conversation option', () => {
  const model = scriptedModel([]);
  it('needs a compact function and a threshold below history.carryMaxBytes', () => {
    expect(() => new Agent({ id: 'a', model, conversation: { compact: 'no' as never } })).toThrow(
      /conversation.compact must be a function/,
    );
    expect(
      () =>
        new Agent({
          id: 'a',
          model,
          history: { carryMaxBytes: 50_000 },
          conversation: { compact: keepRecentMessages(10), compactAboveBytes: 60_000 },
        }),
    ).toThrow(/below history.carryMaxBytes \(50000\)/);
    const agent = new Agent({ id: 'a', model, conversation: { compact: keepRecentMessages(1) } });
    expect(agent.conversation?.compactAboveBytes).toBe(500_000);
  });
});

describe('the conversation cache', () => {
  it('never answers a prefix cached before a compaction for the compacted conversation', async () => {
    const cache = new ConversationCache();
    const old = conversation(3) as unknown as JsonValue[];
    cache.set('run-1', old);
    expect(cache.get('run-1', old.length)).toBe(old);
    expect(cache.get('run-1', old.length, 1)).toBeUndefined();
    const read: number[] = [];
    const source = {
      conversations: cache,
      readConversation: async (_runId: string, upTo: number) => {
        read.push(upTo);
        return old.slice(0, upTo).map(() => 'from the run' as JsonValue);
      },
    };
    const whole = await wholeConversation(source, 'run-1', {
      from: old.length,
      messages: [],
      generation: 1,
    });
    expect(read).toEqual([old.length]);
    expect(whole.every((message) => message === 'from the run')).toBe(true);
  });
});
