/** Response streams: a quiet source gets keep-alive beats between its items, and nothing is lost. */
import { describe, expect, it } from '@jest/globals';
import { TollgateError } from '../../src/common/errors.js';
import { endingWith, endingWithError, withKeepAlive } from '../../src/server/response-stream.js';

async function* slow(): AsyncIterable<string> {
  yield 'a';
  await new Promise((resolve) => setTimeout(resolve, 120));
  yield 'b';
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('withKeepAlive', () => {
  it('beats while the source is quiet, and passes every item through in order', async () => {
    // The source stays quiet until two beats have come out, so a slow machine cannot starve it.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    async function* gated(): AsyncIterable<string> {
      yield 'a';
      await released;
      yield 'b';
    }
    const out: string[] = [];
    for await (const item of withKeepAlive(gated(), 20, () => '.')) {
      out.push(item);
      if (out.filter((x) => x === '.').length === 2) release();
    }
    expect(out).toEqual(['a', '.', '.', 'b']);
  });

  it('never beats a source that keeps talking', async () => {
    expect(await all(withKeepAlive(slow(), 10_000, () => '.'))).toEqual(['a', 'b']);
  });
});

describe('endingWith', () => {
  it('turns a failure after the first items into a last item', async () => {
    async function* failing(): AsyncIterable<string> {
      yield 'a';
      throw new Error('gone');
    }
    const out = await all(endingWith(failing(), (error) => `failed: ${(error as Error).message}`));
    expect(out).toEqual(['a', 'failed: gone']);
  });
});

describe('endingWithError', () => {
  it("ends with the caller's error body: a Tollgate code kept, anything else logged and INTERNAL", async () => {
    async function* failing(error: Error): AsyncIterable<string> {
      yield 'a';
      throw error;
    }
    const logged: string[] = [];
    const log = (_error: unknown, where: string) => logged.push(where);
    const itemOf = (error: { code: string; message: string }) => `${error.code}: ${error.message}`;
    const refused = new TollgateError('AGENT_NOT_FOUND', 'No such agent.');
    expect(await all(endingWithError(failing(refused), log, 'here', itemOf))).toEqual([
      'a',
      'AGENT_NOT_FOUND: No such agent.',
    ]);
    expect(logged).toEqual([]);
    const crash = await all(endingWithError(failing(new Error('secret')), log, 'here', itemOf));
    expect(crash).toEqual(['a', 'INTERNAL: Internal error']);
    expect(logged).toEqual(['here']);
  });
});
