import { describe, expect, it } from '@jest/globals';
import { legacyThreadId } from '../../src/activities/legacy-thread.js';
import { jsonByteLength, retainedMessages } from '../../src/common/thread-retention.js';
import { threadWorkflowId } from '../../src/common/wire.js';

describe('threadWorkflowId', () => {
  it('keeps the id threads always had when no part holds "/" or "%"', () => {
    expect(threadWorkflowId('support', 'user-7', 'thread-1')).toBe(
      'tollgate-thread/support/user-7/thread-1',
    );
  });

  it('gives different ids to parts that joined into the same one before', () => {
    const a = threadWorkflowId('support', 'acme', 'alice/t1');
    const b = threadWorkflowId('support', 'acme/alice', 't1');
    expect(a).toBe('tollgate-thread/support/acme/alice%2Ft1');
    expect(b).toBe('tollgate-thread/support/acme%2Falice/t1');
    // An encoded part written literally must not meet the part it encodes either.
    expect(threadWorkflowId('support', 'acme', 'alice%2Ft1')).not.toBe(a);
  });
});

describe('legacyThreadId', () => {
  const ref = (resourceId: string, threadId: string) => ({ agentId: 'a', resourceId, threadId });

  it('has none when the id never changed', () => {
    expect(legacyThreadId(ref('acme', 't1'))).toBeUndefined();
  });

  it('names the old id of a part with "%", which only this thread could have', () => {
    expect(legacyThreadId(ref('50%', 't1'))).toEqual({
      id: 'tollgate-thread/a/50%/t1',
      ambiguous: false,
    });
  });

  it('marks the old id of a part with "/" as ambiguous', () => {
    expect(legacyThreadId(ref('acme', 'alice/t1'))).toEqual({
      id: 'tollgate-thread/a/acme/alice/t1',
      ambiguous: true,
    });
  });
});

describe('thread retention', () => {
  it('counts JSON bytes as UTF-8', () => {
    expect(jsonByteLength('abc')).toBe(5);
    expect(jsonByteLength('é')).toBe(4);
    expect(jsonByteLength('€')).toBe(5);
    expect(jsonByteLength('😀')).toBe(6);
    expect(jsonByteLength({ a: [1, 2] })).toBe(Buffer.byteLength('{"a":[1,2]}'));
  });

  const message = (n: number) => ({ role: 'user', content: String(n).padStart(8, '0') });
  const size = jsonByteLength(message(0));
  const ten = Array.from({ length: 10 }, (_, n) => message(n));

  it('keeps the newest messages within the count', () => {
    expect(retainedMessages(ten, { maxMessages: 3, maxBytes: 1e6 })).toEqual(ten.slice(7));
  });

  it('keeps the newest messages within the bytes', () => {
    expect(retainedMessages(ten, { maxMessages: 100, maxBytes: size * 4 })).toEqual(ten.slice(6));
    expect(retainedMessages(ten, { maxMessages: 100, maxBytes: size * 4 - 1 })).toEqual(
      ten.slice(7),
    );
  });

  it('keeps everything that fits both bounds', () => {
    expect(retainedMessages(ten, { maxMessages: 10, maxBytes: size * 10 })).toEqual(ten);
  });
});
