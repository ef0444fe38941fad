import type { Client } from '@temporalio/client';
import { makeChunk } from '../common/chunks.js';
import { TollgateError } from '../common/errors.js';
import type { LastChunks } from '../common/run-types.js';
import type { StreamItem } from '../stream/stream-items.js';
import { ChangeSignal } from './change-signal.js';
import { carriedChunks, carriedFrom } from './closing-chunks.js';
import { mayHaveFinished, type LogReading } from './finish-points.js';
import { readLogPatiently, type LogRead } from './chunk-log.js';
import { IDLE_READ_MS, MAX_IDLE_READ_MS, watchHistory } from './history-watch.js';
import type { LiveSubscription } from './live-subscription.js';
import { closedWithoutFinish, endedFromOutside, type HistoryEvent } from './run-ending.js';

/**
 * Follows a run's chunk log from `offset` up to and including the next `finish` chunk. The
 * workflow's log (a query) is the truth; a history long-poll says when it may have grown, and
 * in-process live deltas fill the gap while a model step streams. Where this process's worker
 * ran the run's latest workflow tasks, their chunks come from it (`RelayedLog`) once history shows
 * those tasks completed, and no query is sent; a completed run's result may carry the log's end
 * (`carriedChunks`), which then needs no query either. Live deltas claim no offset:
 * the log's chunks follow them and the stream's reader confirms or withdraws them
 * (`LiveTextMerge`). A run closed without a `finish` in its log (terminated, timed out or
 * cancelled from outside) ends the tail with an `error` chunk naming how it ended. With `reading`
 * `at-ends`, only a completed task that may have logged a `finish` wakes the tail (see
 * `LogReading`); the idle read and the run's close still do.
 */
export async function* tailRun(
  client: Client,
  runId: string,
  offset: number,
  live: LiveSubscription,
  lifetime: AbortSignal,
  reading: LogReading = 'each-change',
): AsyncGenerator<StreamItem> {
  const handle = client.workflow.getHandle(runId);
  const changes = new ChangeSignal();
  // Live text alone does not make the log grow: it is passed on without reading the log.
  live.onChunk = () => changes.notify(false);
  const watcher = new AbortController();
  const stop = () => watcher.abort();
  lifetime.addEventListener('abort', stop);
  let closeEvent: HistoryEvent | undefined;
  /** The log's end the completed run's result carries, once the tail has read its close. */
  let carried: Promise<LastChunks | undefined> | undefined;
  const { relayed } = live;
  const watching = watchHistory(client, runId, watcher.signal, (events) => {
    // The log changes only when a workflow task completes: activity and task-scheduling events
    // alone would cost the worker a query each and show nothing new. After a failed poll, read.
    const completed = relayed.observe(events);
    if (
      events.length === 0 ||
      (completed && (reading === 'each-change' || mayHaveFinished(events)))
    )
      changes.notify();
  }).then((event) => {
    closeEvent = event;
    changes.notify();
  });
  watcher.signal.addEventListener('abort', () => changes.notify());
  let next = offset;
  let liveAt = offset;
  // The first read waits for the watch's first answer (at once: the history so far), which may
  // show that the chunks this process's worker relayed are the whole log from `offset`.
  let readLog = false;
  let readAt = Date.now();
  /** The read is the idle one, made when nothing woke the tail for `idleMs`. */
  let idleRead = false;
  let idleMs = IDLE_READ_MS;
  /** The live chunks that continue the log where the reader is. */
  const liveItems = function* (): Generator<StreamItem> {
    liveAt = Math.max(liveAt, next);
    if (live.takeWithdrawal()) {
      yield { chunk: makeChunk(runId, 'text-withdrawn', { text: '' }), live: liveAt };
      liveAt = next;
    }
    for (let chunk = live.take(liveAt); chunk; chunk = live.take(liveAt)) {
      yield { chunk, live: liveAt++ };
    }
  };
  try {
    for (;;) {
      const shutDown = () =>
        new TollgateError(
          'SHUT_DOWN',
          `The Tollgate following run ${runId} was shut down; observe the run again from offset ${next}.`,
        );
      if (lifetime.aborted) throw shutDown();
      // Read after learning of the close, so the read holds every chunk the run logged.
      const closedBy = readLog ? closeEvent : undefined;
      let slice: LogRead = { chunks: [], offset: next, total: next, closed: false };
      let haveRead = false;
      try {
        const held = readLog ? relayed.read(next) : undefined;
        // A completed run's result may carry the log's end: no query, which would replay the run.
        // Decoded once; a long log read by queries may reach those chunks several reads later.
        carried ??= closedBy && carriedChunks(client, runId, closedBy);
        const closing = !held && carried ? carriedFrom(await carried, next) : undefined;
        // While a workflow task is pending, a query would only wait for its end, which wakes the
        // tail anyway. The idle read still queries; once the run has closed, none is pending.
        const waitForTask = !idleRead && relayed.workflowTaskPending;
        haveRead = held !== undefined || closing !== undefined || (readLog && !waitForTask);
        if (haveRead) readAt = Date.now();
        if (held) slice = { chunks: held, offset: next, total: next + held.length, closed: false };
        else if (closing) slice = closing;
        else if (haveRead) {
          const reading = readLogPatiently(client, handle, next, watcher.signal);
          const read = reading.then(
            () => true,
            () => true,
          );
          // Live text that comes while the log is read goes out at once, not after the read.
          for (;;) {
            const change = changes.next();
            const readDone = await Promise.race([read, change.promise]);
            // A wait the read won is forgotten: a parked run's reads would otherwise each leave
            // one behind until the run changes, which may be days.
            change.cancel();
            if (readDone === true) break;
            yield* liveItems();
          }
          slice = await reading;
        }
      } catch (error) {
        // A read cut short by shutdown is the shutdown, not a failure of the run.
        if (lifetime.aborted) throw shutDown();
        const ending = closedBy && endedFromOutside(runId, closedBy);
        if (!ending) throw error;
        yield { chunk: ending };
        return;
      }
      for (const chunk of slice.chunks) {
        yield { chunk, offset: next++ };
        if (chunk.type === 'finish') return;
      }
      // An execution before a continue-as-new answered: the newest holds what follows. A read
      // answers at most 1,000 chunks (or about 1 MB): the rest of a longer log is read at once,
      // not at the next change or idle read, which may be seconds away.
      if (slice.earlier || (slice.chunks.length > 0 && next < slice.total)) continue;
      if (slice.closed && next >= slice.total) return;
      if (closedBy && next >= slice.total) {
        yield { chunk: endedFromOutside(runId, closedBy) ?? closedWithoutFinish(runId) };
        return;
      }
      yield* liveItems();
      // The history watch wakes the tail on every change; the idle read only covers a watch that
      // misses one. Each read that finds nothing doubles the wait for the next (up to 30 s), so
      // an observer of a run parked for days costs the worker a query every 30 s, not every 2 s;
      // chunks or live text start again at 2 s. Steady live text must not hold off the idle read.
      if (slice.chunks.length > 0 || !readLog) idleMs = IDLE_READ_MS;
      else if (haveRead) idleMs = Math.min(idleMs * 2, MAX_IDLE_READ_MS);
      const changed = await changes.wait(idleMs);
      idleRead = Date.now() - readAt >= idleMs;
      readLog = changed || idleRead;
    }
  } finally {
    lifetime.removeEventListener('abort', stop);
    watcher.abort();
    live.close();
    await watching;
  }
}
