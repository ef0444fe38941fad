import type { Sinks } from '@temporalio/workflow';
import type { Chunk } from './chunks.js';

/**
 * The sink a run calls for every chunk it logs, and where a decision arrives, while not
 * replaying (`src/workflows/chunk-log.ts`): the worker's process relays it to the streams of the
 * run that it serves (`src/live/log-relay.ts`).
 */
export interface LogRelaySinks extends Sinks {
  tollgateLogRelay: {
    /**
     * `chunk` was logged at `offset` by the workflow task under way; `atClose`: by a run that
     * does local work, whose chunks are the log only once it has closed (`ChunkLog.relay`).
     */
    logged(offset: number, chunk: Chunk, atClose: boolean): void;
    /** The log holds `end` chunks in the workflow task under way (one that may log none). */
    reached(end: number): void;
  };
}
