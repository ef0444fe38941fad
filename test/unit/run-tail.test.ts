import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { makeChunk, ZERO_USAGE, type Chunk } from '../../src/common/chunks.js';
import { logRelay } from '../../src/live/log-relay.js';
import type { LiveDeltaTransport } from '../../src/live/live-transport.js';
import { LiveSubscription } from '../../src/temporal-client/live-subscription.js';
import type { HistoryEvent } from '../../src/temporal-client/run-ending.js';
import { IDLE_READ_MS } from '../../src/temporal-client/history-watch.js';
import { tailRun } from '../../src/temporal-client/run-tail.js';

const EXECUTION = 'execution-1';

const event = (attributes: object): HistoryEvent =>
  temporal.api.history.v1.HistoryEvent.fromObject(attributes);
const started = event({
  workflowExecutionStartedEventAttributes: { originalExecutionRunId: EXECUTION },
});
const taskScheduled = event({ workflowTaskScheduledEventAttributes: {} });
const taskStarted = event({ workflowTaskStartedEventAttributes: {} });
const taskCompleted = (task: number) =>
  event({ workflowTaskCompletedEventAttributes: { startedEventId: task } });
const activityScheduled = event({ activityTaskScheduledEventAttributes: {} });
const runCompleted = event({ workflowExecutionCompletedEventAttributes: {} });

/**
 * A client whose history long-poll answers with the pages the test hands it, one per poll (the
 * last one closes the run), and whose chunk-log queries are counted and answer from `log`, at
 * most 1,000 chunks a read as the workflow's query does (no chunks by default).
 */
function fakeClient(runId: string, log: Chunk[] = []) {
  const pages: Array<{ events: HistoryEvent[]; closes: boolean }> = [];
  let hand: (() => void) | undefined;
  const queries: number[] = [];
  const client = {
    options: { namespace: 'default' },
    connection: {
      // As the real connection does: an aborted call rejects, whether or not it was answered.
      withAbortSignal: (signal: AbortSignal, call: () => Promise<unknown>) =>
        Promise.race([
          call(),
          new Promise((_, reject) =>
            signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
          ),
        ]),
    },
    workflowService: {
      async getWorkflowExecutionHistory() {
        while (pages.length === 0) await new Promise<void>((resolve) => (hand = resolve));
        const page = pages.shift()!;
        return {
          history: { events: page.events },
          nextPageToken: page.closes ? new Uint8Array() : new Uint8Array([1]),
        };
      },
    },
    workflow: {
      getHandle: () => ({
        workflowId: runId,
        async query(_query: unknown, { offset }: { offset: number }) {
          queries.push(offset);
          const chunks = log.slice(offset, offset + 1000);
          return { chunks, offset, total: Math.max(offset, log.length), closed: false };
        },
      }),
    },
  } as unknown as Client;
  const page = (events: HistoryEvent[], closes = false) => {
    pages.push({ events, closes });
    hand?.();
  };
  return { client, page, queries };
}

/** What this process's worker logged for `runId` in task `task`, as a run doing local work relays it. */
function relayAtClose(runId: string, task: number, chunks: Chunk[]): void {
  chunks.forEach((chunk, offset) =>
    logRelay.publish(runId, { execution: EXECUTION, task, end: offset + 1, chunk, atClose: true }),
  );
}

async function follow(runId: string, client: Client): Promise<AsyncGenerator<{ chunk: Chunk }>> {
  const bus = { subscribe: () => () => undefined } as unknown as LiveDeltaTransport;
  const live = new LiveSubscription(bus, runId);
  return tailRun(client, runId, 0, live, new AbortController().signal) as AsyncGenerator<{
    chunk: Chunk;
  }>;
}

const runFailed = (type: string) =>
  event({
    workflowExecutionFailedEventAttributes: {
      failure: { message: 'Model step 1 produced too much', applicationFailureInfo: { type } },
    },
  });

async function drain(tail: AsyncGenerator<{ chunk: Chunk }>): Promise<string[]> {
  const types: string[] = [];
  for await (const item of tail) types.push(item.chunk.type);
  return types;
}

const logOf = (runId: string): Chunk[] => [
  makeChunk(runId, 'text-delta', { text: 'Done.' }),
  makeChunk(runId, 'finish', { finishReason: 'stop', usage: ZERO_USAGE }),
];

describe('a run tail and a pending workflow task (pure, no server)', () => {
  it('does not query while the history shows a workflow task scheduled or running: its end wakes the tail', async () => {
    const runId = 'run-pending';
    const { client, page, queries } = fakeClient(runId);
    const tail = await follow(runId, client);
    const reading = drain(tail);
    // A task completed, and the next one runs: a query would only wait for it.
    page([started, taskScheduled, taskStarted, taskCompleted(3), taskScheduled, taskStarted]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(queries).toEqual([]);
    relayAtClose(runId, 6, logOf(runId));
    page([taskCompleted(6), runCompleted], true);
    expect(await reading).toEqual(['text-delta', 'finish']);
    expect(queries).toEqual([]);
  });

  it('queries when no workflow task is pending (the run waits on an activity)', async () => {
    const runId = 'run-waiting';
    const { client, page, queries } = fakeClient(runId);
    const reading = drain(await follow(runId, client));
    page([started, taskScheduled, taskStarted, taskCompleted(3), activityScheduled]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(queries).toEqual([0]);
    relayAtClose(runId, 6, logOf(runId));
    page([taskScheduled, taskStarted, taskCompleted(6), runCompleted], true);
    expect(await reading).toEqual(['text-delta', 'finish']);
    expect(queries).toEqual([0]);
  });
});

describe('a run tail that cannot read the end of a failed run (pure, no server)', () => {
  /** Follows a run whose log reads hold nothing and which closes with `close`: the last chunk. */
  async function lastChunk(runId: string, close: HistoryEvent): Promise<Chunk> {
    const { client, page } = fakeClient(runId);
    const tail = await follow(runId, client);
    page([started, taskScheduled, taskStarted, taskCompleted(3), close], true);
    let last: Chunk | undefined;
    for await (const item of tail) last = item.chunk;
    return last!;
  }

  it("ends with the run's own code, read from its failure's type", async () => {
    const chunk = await lastChunk('run-coded', runFailed('tollgate.PAYLOAD_TOO_LARGE'));
    expect(chunk.payload).toEqual({
      error: 'Run run-coded failed: Model step 1 produced too much',
      code: 'PAYLOAD_TOO_LARGE',
      reason: 'Model step 1 produced too much',
    });
  });

  it('ends with RUN_FAILED for a failure that is not Tollgate’s', async () => {
    const chunk = await lastChunk('run-foreign', runFailed('SomeOtherError'));
    expect(chunk.payload).toMatchObject({
      code: 'RUN_FAILED',
      error: expect.stringContaining('failed without a finish: Model step 1 produced too much'),
    });
  });
});

describe('a run tail and a log longer than one read (pure, no server)', () => {
  it('reads the rest of the log at once, not at the next idle read', async () => {
    const runId = 'run-long';
    const deltas = Array.from({ length: 1500 }, (_, i) =>
      makeChunk(runId, 'text-delta', { text: `${i} ` }),
    );
    const { client, page, queries } = fakeClient(runId, [...deltas, ...logOf(runId)]);
    const began = performance.now();
    const reading = drain(await follow(runId, client));
    // One change: the run went on to an activity after logging it all (a closed run would wake
    // the tail twice, which hid the wait).
    page([started, taskScheduled, taskStarted, taskCompleted(3), activityScheduled]);
    const types = await reading;
    expect(types).toHaveLength(1502);
    expect(types.at(-1)).toBe('finish');
    expect(queries).toEqual([0, 1000]);
    // Before the fix, the second read waited for the idle read, IDLE_READ_MS after the first.
    expect(performance.now() - began).toBeLessThan(IDLE_READ_MS / 2);
  });
});
