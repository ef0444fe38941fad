import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/index.js';
import type { LastChunks, RunResult } from '../common/run-types.js';
import type { LogRead } from './chunk-log.js';
import type { HistoryEvent } from './run-ending.js';

/**
 * The end of the log that a completed run's result carries (`RunResult.lastChunks`) in `close`,
 * the close event a tail's history watch already holds: a client without the run's worker then
 * needs no query of the closed run, which replays the run whole on a worker. `undefined` where the
 * query is still needed: a close that is not a completion, or a result without the chunks (a run
 * from before them, a sub-agent's run, a client whose payloads live in external storage).
 */
export async function carriedChunks(
  client: Client,
  runId: string,
  close: HistoryEvent,
): Promise<LastChunks | undefined> {
  const payloads = close.workflowExecutionCompletedEventAttributes?.result?.payloads;
  const converter = client.options.loadedDataConverter;
  if (!payloads?.length || converter.externalStorage) return undefined;
  let result: Partial<RunResult> | undefined;
  try {
    result = await decodeFromPayloadsAtIndex<Partial<RunResult>>(converter, 0, payloads, {
      type: 'workflow',
      namespace: client.options.namespace,
      workflowId: runId,
    });
  } catch {
    // The query reads what this client cannot decode here.
    return undefined;
  }
  const last = result?.lastChunks;
  if (!last || !Array.isArray(last.chunks) || !Number.isInteger(last.offset)) return undefined;
  return last;
}

/** The log from `offset` to its end out of `carried`; `undefined` when they begin after it. */
export function carriedFrom(carried: LastChunks | undefined, offset: number): LogRead | undefined {
  if (!carried) return undefined;
  const total = carried.offset + carried.chunks.length;
  if (offset < carried.offset || offset > total) return undefined;
  return { chunks: carried.chunks.slice(offset - carried.offset), offset, total, closed: true };
}
