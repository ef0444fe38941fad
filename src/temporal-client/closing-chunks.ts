import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/index.js';
import type { RunResult } from '../common/run-types.js';
import type { LogRead } from './chunk-log.js';
import type { HistoryEvent } from './run-ending.js';

/**
 * The log from `offset` to its end, as the result of a completed run carries it
 * (`RunResult.lastChunks`) in `close`, the close event a tail's history watch already holds. A
 * client without the run's worker then needs no query of the closed run, which replays the run
 * whole on a worker. `undefined` where the query is still needed: a close that is not a completion,
 * a result without the chunks (a run from before them, a sub-agent's run, a client whose payloads
 * live in external storage) or chunks that begin after `offset`.
 */
export async function chunksAtClose(
  client: Client,
  runId: string,
  close: HistoryEvent,
  offset: number,
): Promise<LogRead | undefined> {
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
  const total = last.offset + last.chunks.length;
  if (offset < last.offset || offset > total) return undefined;
  return { chunks: last.chunks.slice(offset - last.offset), offset, total, closed: true };
}
