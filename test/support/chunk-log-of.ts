import type { Chunk } from '../../src/common/chunks.js';
import { ChunkLog } from '../../src/workflows/chunk-log.js';

/**
 * A run's chunk log holding `chunks`, as the workflow would after a continue-as-new at `base`,
 * built outside a workflow: nothing is emitted, so nothing is relayed.
 */
export function chunkLogOf(runId: string, chunks: Chunk[], base = 0): ChunkLog {
  const log = new ChunkLog(runId);
  log.base = base;
  log.chunks.push(...chunks);
  return log;
}
