import { describe, expect, it } from '@jest/globals';
import { LiveTextMerge } from '../../src/stream/stream-items.js';
import { makeChunk, type Chunk } from '../../src/common/chunks.js';

const delta = (text: string) => makeChunk('r', 'text-delta', { text });
const withdrawMarker = makeChunk('r', 'text-withdrawn', { text: '' });
const stepFinish = makeChunk('r', 'step-finish', {
  step: 1,
  finishReason: 'stop',
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
});

function shown(merge: LiveTextMerge, items: Parameters<LiveTextMerge['push']>[0][]): Chunk[] {
  return items.flatMap((item) => merge.push(item));
}

describe('LiveTextMerge', () => {
  it('shows live text once: the log chunks that confirm it are not shown again', () => {
    const merge = new LiveTextMerge('r');
    const out = shown(merge, [
      { chunk: delta('Hel'), live: 3 },
      { chunk: delta('lo'), live: 4 },
      { chunk: delta('Hel'), offset: 3 },
      { chunk: delta('lo'), offset: 4 },
      { chunk: stepFinish, offset: 5 },
    ]);
    expect(out).toEqual([delta('Hel'), delta('lo'), stepFinish]);
  });

  it('withdraws live text the log does not hold, then shows the log', () => {
    const merge = new LiveTextMerge('r');
    const out = shown(merge, [
      { chunk: delta('Wrong '), live: 3 },
      { chunk: delta('text'), live: 4 },
      { chunk: delta('Wrong '), offset: 3 },
      { chunk: delta('Right'), offset: 4 },
    ]);
    expect(out).toEqual([
      delta('Wrong '),
      delta('text'),
      makeChunk('r', 'text-withdrawn', { text: 'text' }),
      delta('Right'),
    ]);
  });

  it('withdraws at the step’s withdrawal marker, and only text it showed', () => {
    const merge = new LiveTextMerge('r');
    expect(merge.push({ chunk: withdrawMarker, live: 3 })).toEqual([]);
    const out = shown(merge, [
      { chunk: delta('Oops'), live: 3 },
      { chunk: withdrawMarker, live: 3 },
      { chunk: delta('Fine'), live: 3 },
      { chunk: delta('Fine'), offset: 3 },
    ]);
    expect(out).toEqual([
      delta('Oops'),
      makeChunk('r', 'text-withdrawn', { text: 'Oops' }),
      delta('Fine'),
    ]);
  });

  it('withdraws unconfirmed live text before an outcome the log does not hold', () => {
    const merge = new LiveTextMerge('r');
    const ending = makeChunk('r', 'error', { error: 'terminated', code: 'RUN_TERMINATED' });
    const out = shown(merge, [{ chunk: delta('Half'), live: 7 }, { chunk: ending }]);
    expect(out).toEqual([
      delta('Half'),
      makeChunk('r', 'text-withdrawn', { text: 'Half' }),
      ending,
    ]);
  });
});
