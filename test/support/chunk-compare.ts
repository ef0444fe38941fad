import type { Chunk } from '../../src/index.js';

/**
 * A chunk log without what differs between two agents' runs of the same script: run and agent
 * ids, and the order of one step's parallel tool results (activities may complete in any order).
 */
export function comparable(chunks: Chunk[]): unknown[] {
  const out: Array<{ type: string; payload: unknown }> = [];
  let results: Array<{ type: string; payload: unknown }> = [];
  const flush = () => {
    const id = (chunk: { payload: unknown }) =>
      (chunk.payload as { toolCallId: string }).toolCallId;
    out.push(...results.sort((a, b) => id(a).localeCompare(id(b))));
    results = [];
  };
  for (const { type, payload } of chunks) {
    if (type === 'tool-result') {
      results.push({ type, payload });
      continue;
    }
    flush();
    out.push({ type, payload: type === 'start' ? { ...payload, agentId: 'any' } : payload });
  }
  flush();
  return out;
}
