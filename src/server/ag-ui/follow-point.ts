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

/** A run's log as its newest execution holds it (after a continue-as-new, from its base). */
export interface NewestLog {
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
export function followPoint(messages: JsonValue[], log: NewestLog): FollowPoint {
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
 * The chunks of the run's newest execution, read by query: a run that continued as new holds its
 * earlier steps in earlier executions, whose messages the snapshot has in any case.
 */
export async function newestLogOf(client: Client, runId: string): Promise<NewestLog> {
  const handle = client.workflow.getHandle(runId);
  // Below its base, the newest execution answers from where its part of the log begins.
  const first = await handle.query(chunksQuery, { offset: 0 });
  const chunks = [...first.chunks];
  let total = first.total;
  while (first.offset + chunks.length < total) {
    const slice = await handle.query(chunksQuery, { offset: first.offset + chunks.length });
    if (slice.chunks.length === 0) break;
    chunks.push(...slice.chunks);
    total = slice.total;
  }
  return { offset: first.offset, chunks };
}
