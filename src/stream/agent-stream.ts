import type { GrantRelease } from '../common/grant-types.js';
import type { Chunk, ChunkOf, FinishReason, ToolCallRef, Usage } from '../common/chunks.js';
import { refOf, ZERO_USAGE } from '../common/chunks.js';
import type { JsonValue } from '../common/json.js';
import type { PendingToolCall } from '../common/run-types.js';
import { ReplayBuffer } from './replay-buffer.js';
import { LiveTextMerge, type StreamItem } from './stream-items.js';

/** The call a suspended stream waits on (SPEC §3, `suspendPayload`). */
export interface SuspendPayload extends ToolCallRef {
  /** True for an approval gate, false for a tool's own `suspend()`. */
  requiresApproval: boolean;
  fingerprint?: string;
  /** What the tool passed to `suspend()`. */
  suspendPayload?: JsonValue;
}

export interface ToolResultRef extends ToolCallRef {
  result?: JsonValue;
  error?: string;
}

/** Looks up the run's latest waiting call when the stream itself did not show it. */
export type PendingLookup = () => Promise<SuspendPayload | undefined>;

function settled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * The chunks of one stretch of a run: from its start (or a decision) until the run finishes or
 * stops to wait. Iterate `fullStream` or `textStream` as often as needed; the promises resolve
 * when the stretch ends.
 */
export class AgentStream {
  readonly runId: string;
  /** Chunk-log offset of this stretch's first chunk: 0 for a new run, the decision's offset after one. */
  readonly startOffset: number;
  readonly text: Promise<string>;
  readonly finishReason: Promise<FinishReason>;
  readonly usage: Promise<Usage>;
  readonly toolCalls: Promise<ToolCallRef[]>;
  readonly toolResults: Promise<ToolResultRef[]>;
  /** The call the run waits on when `finishReason` is `'suspended'`; otherwise undefined. */
  readonly suspendPayload: Promise<SuspendPayload | undefined>;
  /** Chunk-log offset just past this stretch: `observe({ runId, offset })` continues from there. */
  readonly nextOffset: Promise<number>;
  /**
   * The stretch's chunks as the run's log holds them, plus an outcome the log lacks (an
   * `error` for a run ended from outside): no live text. The promises above derive from it.
   */
  readonly recorded: Promise<Chunk[]>;
  private readonly buffer: ReplayBuffer<StreamItem>;
  /**
   * After an approval with a grant: the other waiting calls the grant released, and those
   * refused (docs/grant-release.md). Undefined otherwise.
   */
  grantRelease?: GrantRelease;

  constructor(
    runId: string,
    startOffset: number,
    source: AsyncIterable<StreamItem>,
    lookupPending: PendingLookup,
  ) {
    this.runId = runId;
    this.startOffset = startOffset;
    this.buffer = new ReplayBuffer(source);
    const items = settled(this.buffer.done.then(() => this.buffer.items));
    const all = settled(
      items.then((list) => list.flatMap((i) => (i.live === undefined ? [i.chunk] : []))),
    );
    this.recorded = all;
    const finish = all.then((chunks) =>
      chunks.findLast((c): c is ChunkOf<'finish'> => c.type === 'finish'),
    );
    this.text = settled(
      all.then((chunks) =>
        chunks.map((c) => (c.type === 'text-delta' ? c.payload.text : '')).join(''),
      ),
    );
    this.finishReason = settled(finish.then((c) => c?.payload.finishReason ?? 'error'));
    this.usage = settled(finish.then((c) => c?.payload.usage ?? ZERO_USAGE));
    this.toolCalls = settled(
      all.then((chunks) =>
        chunks.filter((c) => c.type === 'tool-call').map((c) => c.payload as ToolCallRef),
      ),
    );
    this.toolResults = settled(all.then(toolResultsOf));
    this.nextOffset = settled(
      items.then(
        (list) => (list.findLast((i) => i.offset !== undefined)?.offset ?? startOffset - 1) + 1,
      ),
    );
    this.suspendPayload = settled(
      all.then(async (chunks) => {
        if ((await this.finishReason) !== 'suspended') return undefined;
        return waitingIn(chunks) ?? (await lookupPending());
      }),
    );
  }

  /** Every chunk, in order; live text first shows as it streams (see `text-withdrawn`). */
  get fullStream(): AsyncIterable<Chunk> {
    const { buffer, runId } = this;
    return {
      async *[Symbol.asyncIterator]() {
        const merge = new LiveTextMerge(runId);
        for await (const item of buffer.read()) yield* merge.push(item);
      },
    };
  }

  /** The stream's items as they came: log chunks with offsets, live text apart (for SSE). */
  get items(): AsyncIterable<StreamItem> {
    return { [Symbol.asyncIterator]: () => this.buffer.read() };
  }

  /** The text deltas only. */
  get textStream(): AsyncIterable<string> {
    const chunks = this.fullStream;
    return {
      async *[Symbol.asyncIterator]() {
        for await (const chunk of chunks) if (chunk.type === 'text-delta') yield chunk.payload.text;
      },
    };
  }
}

function toolResultsOf(chunks: Chunk[]): ToolResultRef[] {
  const results: ToolResultRef[] = [];
  for (const chunk of chunks) {
    if (chunk.type === 'tool-result') results.push({ ...chunk.payload });
    if (chunk.type === 'tool-error') results.push({ ...chunk.payload });
  }
  return results;
}

/** The latest call this stream asked a decision for and did not see resolved. */
function waitingIn(chunks: Chunk[]): SuspendPayload | undefined {
  const resolved = new Set<string>();
  for (let index = chunks.length - 1; index >= 0; index--) {
    const chunk = chunks[index]!;
    if (chunk.type === 'tool-result' || chunk.type === 'tool-error')
      resolved.add(chunk.payload.toolCallId);
    if (
      resolved.has(
        chunk.type === 'tool-call-approval' || chunk.type === 'tool-call-suspended'
          ? chunk.payload.toolCallId
          : '',
      )
    )
      continue;
    if (chunk.type === 'tool-call-approval') {
      return {
        ...refOf(chunk.payload),
        fingerprint: chunk.payload.fingerprint,
        requiresApproval: true,
      };
    }
    if (chunk.type === 'tool-call-suspended') {
      const { suspendPayload } = chunk.payload;
      return { ...refOf(chunk.payload), suspendPayload, requiresApproval: false };
    }
  }
  return undefined;
}

/** A run's most recently requested waiting call, as a stream's `suspendPayload`. */
export function latestPending(pending: PendingToolCall[]): SuspendPayload | undefined {
  const call = pending.at(-1);
  if (!call) return undefined;
  const { fingerprint, requiresApproval, suspendPayload } = call;
  return {
    ...refOf(call),
    fingerprint,
    requiresApproval,
    ...(suspendPayload !== undefined ? { suspendPayload } : {}),
  };
}
