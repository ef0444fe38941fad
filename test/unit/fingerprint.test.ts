import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { canonicalJson, toolCallFingerprint } from '../../src/index.js';
import { sha256Hex } from '../../src/common/sha256.js';

const nodeSha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('fingerprints (SPEC §4)', () => {
  it('hashes like node:crypto for empty, multi-block and non-ASCII input', () => {
    for (const text of [
      '',
      'abc',
      'a'.repeat(55),
      'a'.repeat(56),
      'a'.repeat(64),
      'x'.repeat(1000),
      'Zürich ☀️ 東京',
    ]) {
      expect(sha256Hex(text)).toBe(nodeSha(text));
    }
  });

  it('is the SHA-256 of canonical JSON, independent of key order and whitespace', () => {
    const args = { b: [1, { d: true, c: null }], a: 'x' };
    expect(canonicalJson({ args, toolName: 't' })).toBe(
      '{"args":{"a":"x","b":[1,{"c":null,"d":true}]},"toolName":"t"}',
    );
    expect(toolCallFingerprint('t', args)).toBe(
      nodeSha('{"args":{"a":"x","b":[1,{"c":null,"d":true}]},"toolName":"t"}'),
    );
    expect(toolCallFingerprint('t', { a: 'x', b: [1, { c: null, d: true }] })).toBe(
      toolCallFingerprint('t', args),
    );
    expect(toolCallFingerprint('t', { a: 'y' })).not.toBe(toolCallFingerprint('t', args));
  });
});
