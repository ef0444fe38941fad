import { makeChunk } from '../common/chunks.js';
import type { LiveChunk } from './live-transport.js';

/**
 * A live chunk as it crosses a broker: `{"v":1,"offset","step","attempt","type","text"}`, the
 * chunk rebuilt on arrival. Only text deltas and withdrawals travel live.
 */
interface LiveWire {
  v: 1;
  offset: number;
  step: number;
  attempt: number;
  type: 'text-delta' | 'text-withdrawn';
  text: string;
}

/** The message for `live`, or undefined for a chunk that never travels live. */
export function encodeLive(live: LiveChunk): string | undefined {
  const { chunk } = live;
  if (chunk.type !== 'text-delta' && chunk.type !== 'text-withdrawn') return undefined;
  const wire: LiveWire = {
    v: 1,
    offset: live.offset,
    step: live.step,
    attempt: live.attempt,
    type: chunk.type,
    text: chunk.payload.text,
  };
  return JSON.stringify(wire);
}

/** The live chunk of `runId` a message carries, or undefined for anything else (ignored). */
export function decodeLive(runId: string, message: string): LiveChunk | undefined {
  let wire: Partial<LiveWire>;
  try {
    wire = JSON.parse(message) as Partial<LiveWire>;
  } catch {
    return undefined;
  }
  const { offset, step, attempt, type, text } = wire;
  if (
    wire.v !== 1 ||
    !isCount(offset) ||
    !isCount(step) ||
    !isCount(attempt) ||
    typeof text !== 'string' ||
    (type !== 'text-delta' && type !== 'text-withdrawn')
  ) {
    return undefined;
  }
  return { offset, step, attempt, chunk: makeChunk(runId, type, { text }) };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
