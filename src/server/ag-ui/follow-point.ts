import type { Client } from '@temporalio/client';
import type { Chunk } from '../../common/chunks.js';
import type { JsonValue } from '../../common/json.js';
import { chunksQuery } from '../../common/messages.js';
import { modelMessageOf } from '../chat/model-parts.js';

/** What a MESSAGES_SNAPSHOT already shows: its calls and results are not sent again. */
export interface Shown {
  calls: ReadonlySet<string>;
  results: ReadonlySet<string>;
}

/** Where the stream of a reloaded client picks up a working run, and what its snapshot shows. */
export interface FollowPoint extends Shown {
  /** The log offset the stream follows the run from. */
  offset: number;
}

/** A stretch of a run's log: its chunks from `offset`. */
export interface LogPart {
  offset: number;
  chunks: Chunk[];
}

/**
 * Where to follow a run from, given the messages the snapshot was built from (read before the
 * log, so the log holds everything they do): just after the `step-finish` of the newest step
 * whose model output the snapshot holds (its calls are among the snapshot's, or, for a step
 * without calls, the snapshot ends with its text), or the start of the newest execution's log
 * when it holds none. A step's events are whole on one side of that point; the results of its
 * calls come after it, and those the snapshot already shows are listed in `results`. Pure.
 */
export function followPoint(messages: JsonValue[], log: LogPart): FollowPoint {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const raw of messages) {
    const { role, parts } = modelMessageOf(raw);
    for (const part of parts) {
      if (!part.toolCallId) continue;
      if (role === 'assistant' && part.type === 'tool-call') calls.add(part.toolCallId);
      if (role === 'tool' && part.type === 'tool-result') results.add(part.toolCallId);
    }
  }
  const answer = finalAnswerOf(messages);
  const holds = (step: { calls: string[]; text: string }) =>
    step.calls.length > 0 ? step.calls.every((id) => calls.has(id)) : answer === step.text;
  let offset = log.offset;
  let step: { calls: string[]; text: string } | undefined;
  log.chunks.forEach((chunk, index) => {
    if (chunk.type === 'step-start') step = { calls: [], text: '' };
    else if (chunk.type === 'text-delta' && step) step.text += chunk.payload.text;
    else if (chunk.type === 'tool-call' && step) step.calls.push(chunk.payload.toolCallId);
    else if (chunk.type === 'step-finish') {
      if (step && holds(step)) offset = log.offset + index + 1;
      step = undefined;
    }
  });
  return { offset, calls, results };
}

/** The text of the last message when it is a model answer without calls: a run's last step. */
function finalAnswerOf(messages: JsonValue[]): string | undefined {
  const last = messages.at(-1);
  if (last === undefined) return undefined;
  const { role, parts } = modelMessageOf(last);
  if (role !== 'assistant' || parts.some((p) => p.type === 'tool-call')) return undefined;
  return parts.flatMap((p) => (p.type === 'text' && p.text ? [p.text] : [])).join('');
}

/**
 * `followPoint` over the run's log as it is now, read after `messages`. The newest execution's
 * part of the log is read; the one before it too only when the run continued as new between the
 * two reads while the snapshot's last step still waited for results: that step, and the results
 * the snapshot lacks, are in the execution before.
 */
export async function followPointOf(
  client: Client,
  runId: string,
  messages: JsonValue[],
): Promise<FollowPoint> {
  const newest = await executionLog(client, runId);
  const point = followPoint(messages, newest);
  const unanswered = [...point.calls].some((id) => !point.results.has(id));
  if (point.offset > newest.offset || !unanswered || newest.previous === undefined) return point;
  const earlier = await executionLog(client, runId, newest.previous);
  return followPoint(messages, {
    offset: earlier.offset,
    chunks: [...earlier.chunks, ...newest.chunks],
  });
}

/**
 * One execution's part of the run's log (the newest one's by default), by query, and the
 * execution before it, if any.
 */
async function executionLog(
  client: Client,
  runId: string,
  execution?: string,
): Promise<LogPart & { previous?: string }> {
  const handle = client.workflow.getHandle(runId, execution);
  // Below its base, an execution answers from where its part of the log begins.
  const first = await handle.query(chunksQuery, { offset: 0 });
  const chunks = [...first.chunks];
  let total = first.total;
  while (first.offset + chunks.length < total) {
    const slice = await handle.query(chunksQuery, { offset: first.offset + chunks.length });
    if (slice.chunks.length === 0) break;
    chunks.push(...slice.chunks);
    total = slice.total;
  }
  const previous = first.previousExecution;
  return { offset: first.offset, chunks, ...(previous !== undefined ? { previous } : {}) };
}
