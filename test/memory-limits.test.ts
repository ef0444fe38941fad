/**
 * Memory threads at Temporal's limits, on a dev server of its own whose payload and history
 * limits are 64 KiB and 1 MiB (instead of 2 MiB and 50 MiB), so a long conversation meets them
 * in a few runs.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowFailedError } from '@temporalio/client';
import { Agent, Tollgate } from '../src/index.js';
import { jsonByteLength } from '../src/common/thread-retention.js';
import { THREAD_MESSAGES, threadWorkflowId } from '../src/common/wire.js';
import type { DevServer } from '../src/devserver/index.js';
import { ownDevServer } from './support/own-dev-server.js';
import type { JsonValue } from '../src/common/json.js';
import { scriptedModel } from '../src/testing/index.js';
import { uniqueId, uniqueQueue } from './support/harness.js';
import { expectUnbrokenChain } from './support/thread-chain.js';

const PAYLOAD_LIMIT = 64 * 1024;
/** The thread's byte budget: 5 runs of one ~4 KB message and a short reply fit, 6 do not. */
const MAX_BYTES = 22 * 1024;
const filler = (turn: number) => `Turn ${turn}: ${'x'.repeat(4000)}`;

/** Answers with the turns it remembers, e.g. `Remembered: 14,15,16`. */
const recallModel = scriptedModel((prompt) => {
  const turns = JSON.stringify(prompt.slice(0, -1))
    .match(/Turn \d+/g)
    ?.map((t) => t.slice(5));
  return { text: `Remembered: ${(turns ?? []).join(',')}` };
});

describe('memory threads at the payload and history limits', () => {
  let server: DevServer;
  let tollgate: Tollgate;
  const agent = new Agent({ id: 'recall-agent', model: recallModel, memory: { lastMessages: 40 } });

  beforeAll(async () => {
    server = await ownDevServer('limits', {
      'limit.blobSize.error': PAYLOAD_LIMIT,
      'limit.blobSize.warn': PAYLOAD_LIMIT / 2,
      'limit.historySize.error': 1024 * 1024,
      'limit.historySize.warn': 512 * 1024,
      'limit.historySize.suggestContinueAsNew': 48 * 1024,
    });
    tollgate = new Tollgate({
      agents: { agent },
      temporal: { address: server.address, taskQueue: uniqueQueue('memory-limits') },
      threads: { maxBytes: MAX_BYTES },
    });
    await tollgate.startWorker();
  }, 120_000);
  afterAll(async () => {
    await tollgate?.shutdown();
    await server?.stop();
  });

  const threadId = (memory: { thread: string; resource: string }) =>
    threadWorkflowId('recall-agent', memory.resource, memory.thread);

  async function threadMessages(memory: { thread: string; resource: string }) {
    const client = await tollgate.client();
    return client.workflow
      .getHandle(threadId(memory))
      .query<JsonValue[], [{ last: number }]>(THREAD_MESSAGES.messages, { last: 10_000 });
  }

  it('keeps the newest messages within its byte budget across continue-as-new, never losing the thread', async () => {
    const a = tollgate.getAgent('recall-agent');
    const memory = { thread: uniqueId('long'), resource: 'user-1' };
    // 24 runs of ~4 KB: ~100 KB of conversation, past the 64 KiB payload limit.
    for (let turn = 1; turn <= 24; turn++) await a.generate(filler(turn), { memory });
    const answer = await a.generate('What do you remember?', { memory });
    expect(answer.text).toBe('Remembered: 20,21,22,23,24');
    await expectUnbrokenChain(await tollgate.client(), threadId(memory));
    expect(jsonByteLength(await threadMessages(memory))).toBeLessThanOrEqual(MAX_BYTES);
  });

  it('fails a run whose own messages exceed the budget with THREAD_APPEND_TOO_LARGE, leaving the thread as it was', async () => {
    const a = tollgate.getAgent('recall-agent');
    const memory = { thread: uniqueId('oversize'), resource: 'user-1' };
    await a.generate(filler(1), { memory });
    const before = await threadMessages(memory);
    const oversize = await a.generate(`Turn 2: ${'y'.repeat(30_000)}`, { memory });
    expect(oversize.finishReason).toBe('error');
    expect(oversize.error).toMatch(/adds \d+ bytes of messages .* more than the 22528/);
    const client = await tollgate.client();
    const failure = await client.workflow
      .getHandle(oversize.runId)
      .result()
      .catch((e) => e);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toMatchObject({
      type: 'tollgate.THREAD_APPEND_TOO_LARGE',
    });
    expect(await threadMessages(memory)).toEqual(before);
    expect((await a.generate('What do you remember?', { memory })).text).toBe('Remembered: 1');
  });

  it('refuses a thread budget that is not a positive whole number, naming it', async () => {
    const misconfigured = new Tollgate({
      agents: { agent },
      temporal: { address: server.address, taskQueue: uniqueQueue('memory-limits-bad') },
      threads: { maxBytes: 0 },
    });
    await expect(misconfigured.startWorker()).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('threads.maxBytes is 0'),
    });
    await misconfigured.shutdown();
  });
});
