import { proxySinks, workflowInfo } from '@temporalio/workflow';
import {
  makeChunk,
  type Chunk,
  type ChunkPayloads,
  type ChunkSlice,
  type ChunkType,
} from '../common/chunks.js';
import type { LogRelaySinks } from '../common/log-relay-sinks.js';
import { jsonBytes } from '../common/continued-run.js';
import type { LastChunks, RunResult } from '../common/run-types.js';

const { tollgateLogRelay } = proxySinks<LogRelaySinks>();

/** Most chunks one read of the log answers: the chunk query's largest slice, a follower's answer. */
export const MAX_SLICE_CHUNKS = 1000;
/** At most this many chunks end a run's result (`ChunkLog.lastChunks`). */
export const LAST_CHUNKS_MAX = 128;
/** At most this many bytes of chunks' JSON end a run's result. */
export const LAST_CHUNKS_MAX_BYTES = 32 * 1024;
/**
 * A result of this many bytes fits any server Tollgate runs on (`limit.blobSize.error` of 64 KiB
 * and up; Temporal's default is 2 MiB), however small the run's last model step was.
 */
export const RESULT_FLOOR_BYTES = 16 * 1024;
/** What `lastChunks` adds around its chunks: `,"lastChunks":{"offset":…,"chunks":[…]}`. */
const WRAPPER_BYTES = 64;

/**
 * `result` with the end of the run's log (`RunResult.lastChunks`), as much of it as fits in room
 * that cannot take the result over the server's payload limit: the whole result stays within the
 * bytes of the run's last model step output (`acceptedBytes`, a payload the server took from this
 * run), or `RESULT_FLOOR_BYTES`, whichever is more. A result with no room is returned as it is.
 */
export function withLastChunks(result: RunResult, log: ChunkLog, acceptedBytes: number): RunResult {
  const allowed = Math.max(acceptedBytes, RESULT_FLOOR_BYTES) - jsonBytes(result) - WRAPPER_BYTES;
  const room = Math.min(LAST_CHUNKS_MAX_BYTES, allowed);
  return room > 0 ? { ...result, lastChunks: log.lastChunks(room) } : result;
}

function replaying(): boolean {
  return workflowInfo().unsafe.isReplayingHistoryEvents;
}

/**
 * The run's chunk log (SPEC §4), which `stream()` reads by offset. It lives only in workflow
 * memory and is rebuilt by replay; after a continue-as-new it goes on at the offset where the
 * previous execution stopped.
 */
export class ChunkLog {
  readonly chunks: Chunk[] = [];
  /**
   * Offset of `chunks[0]` in the run's log: 0 in a run's first execution, the offset where the
   * previous one ended after a continue-as-new. Offsets clients hold are offsets in the whole log.
   */
  base = 0;
  /** Temporal run id of the execution before this one, which answers for offsets below the base. */
  previousExecution: string | undefined;
  /** The run has closed: readers stop at the end of the log. */
  closed = false;
  /**
   * How chunks go to the worker's process as they are logged. `each-task`: a stream there shows
   * them once history shows the workflow task that logged them completed. `at-close`, in runs that
   * do local work: a workflow task that outlasts a local activity is completed and continued by a
   * new one while the workflow code runs on, so a chunk's task could not be told for certain; a
   * stream shows them only once the run has closed by its own command with no workflow task
   * failed (`RelayedLog`).
   */
  relay: 'each-task' | 'at-close' = 'each-task';
  /** Offset of the log's latest `finish` chunk in this execution; -1 before the first. */
  lastFinish = -1;
  /** The execution is about to continue as new: followers answer with what the log holds now. */
  lettingGo = false;

  constructor(readonly runId: string) {}

  emit<T extends ChunkType>(type: T, payload: ChunkPayloads[T]): void {
    const chunk = makeChunk(this.runId, type, payload);
    this.chunks.push(chunk);
    if (type === 'finish') this.lastFinish = this.nextOffset - 1;
    // Streams in the worker's process read it from there once the task completes, not by a query.
    // Not a command: replay neither calls the sink nor sees whether it was called.
    if (!replaying())
      tollgateLogRelay.logged(this.nextOffset - 1, chunk, this.relay === 'at-close');
  }

  /**
   * Tells streams in the worker's process how long the log is in this workflow task, which may
   * log nothing (a decision that only lets the run go on): they need no query to know it.
   */
  relayEnd(): void {
    if (this.relay === 'each-task' && !replaying()) tollgateLogRelay.reached(this.nextOffset);
  }

  /**
   * Up to `limit` chunks from `offset`, and no more than about `maxBytes` of JSON (at least one
   * chunk), so a query answer stays well under gRPC's message limit.
   */
  slice(offset: number, limit: number, maxBytes = 1_000_000): ChunkSlice {
    const start = Math.max(0, Math.min(offset - this.base, this.chunks.length));
    let end = start;
    let bytes = 0;
    while (end < this.chunks.length && end - start < limit && (end === start || bytes < maxBytes)) {
      bytes += JSON.stringify(this.chunks[end]).length;
      end++;
    }
    return {
      chunks: this.chunks.slice(start, end),
      offset: this.base + start,
      total: this.nextOffset,
      closed: this.closed,
      // Only executions after a continue-as-new say where their part of the log begins.
      ...(this.base > 0 ? { base: this.base } : {}),
      ...(this.previousExecution !== undefined && offset < this.base
        ? { previousExecution: this.previousExecution }
        : {}),
    };
  }

  /**
   * The end of the log for the run's result: as many of its last chunks as fit in
   * `LAST_CHUNKS_MAX` chunks and `maxBytes` bytes of JSON. A reader whose offset is among them
   * needs no query; one further back queries as before.
   */
  lastChunks(maxBytes: number): LastChunks {
    let start = this.chunks.length;
    let bytes = 0;
    while (start > 0 && this.chunks.length - start < LAST_CHUNKS_MAX) {
      // Each chunk and the comma before it.
      bytes += jsonBytes(this.chunks[start - 1]!) + 1;
      if (bytes > maxBytes) break;
      start--;
    }
    return { offset: this.base + start, chunks: this.chunks.slice(start) };
  }

  /** Offset the next chunk of the run's log gets. */
  get nextOffset(): number {
    return this.base + this.chunks.length;
  }
}
