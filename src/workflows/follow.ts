import { ApplicationFailure, HandlerUnfinishedPolicy } from '@temporalio/common';
import { condition, setHandler } from '@temporalio/workflow';
import { followUpdate } from '../common/messages.js';
import { MAX_SLICE_CHUNKS, type ChunkLog } from './chunk-log.js';

/**
 * Followers one execution lets wait at once. Temporal allows 10 updates in flight a run; the rest
 * stay for decisions.
 */
export const MAX_WAITING_FOLLOWERS = 4;
/** Followers one execution accepts in all: Temporal allows 2,000 updates an execution. */
export const MAX_FOLLOWERS = 500;
/** Largest answer, in bytes of JSON (at least one chunk); a reader goes on from where it stops. */
export const FOLLOW_ANSWER_MAX_BYTES = 64 * 1024;

/** The failure a refused follower gets before anything is written to history: it reads history. */
function refused(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'TollgateFollowRefused', message, nonRetryable: true });
}

/**
 * The follow update (docs/streams.md "Following by update"): a client that would otherwise
 * long-poll the run's history until its next `finish` asks the run, which answers with the log
 * from the client's offset once it holds a `finish` there, the run closes, or the execution lets
 * its followers go before a continue-as-new (the answer then ends without a `finish`, and the
 * reader goes on with the history tail). The validator keeps followers within Temporal's update
 * limits and this execution's part of the log; a refused follower leaves no trace in history.
 * Validators do not run on replay; the counts are rebuilt by the handlers, which do.
 */
export function installFollow(log: ChunkLog): void {
  let waiting = 0;
  let accepted = 0;
  setHandler(
    followUpdate,
    async ({ offset }) => {
      accepted++;
      waiting++;
      try {
        await condition(() => log.lastFinish >= offset || log.closed || log.lettingGo);
      } finally {
        waiting--;
      }
      return log.slice(offset, MAX_SLICE_CHUNKS, FOLLOW_ANSWER_MAX_BYTES);
    },
    {
      validator: (input) => {
        const offset = (input as { offset?: unknown } | undefined)?.offset;
        if (typeof offset !== 'number' || !Number.isSafeInteger(offset))
          throw refused(`A follower names its offset as a whole number, not ${String(offset)}.`);
        if (offset < log.base || offset > log.nextOffset)
          throw refused(
            `Offset ${offset} is outside this execution's log (${log.base} to ${log.nextOffset}).`,
          );
        if (log.lettingGo) throw refused('The execution is continuing as new.');
        if (waiting >= MAX_WAITING_FOLLOWERS || accepted >= MAX_FOLLOWERS)
          throw refused(
            `The run has ${waiting} followers waiting and accepted ${accepted}; read its history.`,
          );
      },
      // A run that fails or is cancelled while followed leaves them to read how it ended.
      unfinishedPolicy: HandlerUnfinishedPolicy.ABANDON,
    },
  );
}
