/**
 * Conversation compaction (issue 13, finding 3): a long run whose conversation would not fit in
 * what a continue-as-new carries compacts it on the worker and finishes. The agents carry at most
 * 12 KB and compact above 6 KB, against a conversation that grows ≈ 0.9 KB a step.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../src/worker.js';

import {
  Agent,
  keepRecentMessages,
  summarizeOlderMessages,
  type AuditEntry,
  type CompactionAuditEntry,
  type ConversationCompactor,
  type Tollgate,
} from '../src/index.js';
import type { JsonValue } from '../src/common/json.js';
import { QUERIES, THREAD_MESSAGES, threadWorkflowId } from '../src/common/wire.js';
import { SUMMARY_PREFIX } from '../src/definitions/compaction-strategies.js';
import { scriptedModel, type ScriptedModel, type TurnPicker } from '../src/testing/index.js';
import { runFailure } from './support/run-failure.js';
import { chunksOf, executionsOf, recordingTool, uniqueId } from './support/harness.js';
import { patchesOf } from './support/patch-markers.js';
import { COMPACTION_PATCH } from '../src/workflows/patch-ids.js';

const STEPS = 30;
const LIMITS = { continueAfterEvents: 40, carryMaxBytes: 12_000 };
const COMPACT_ABOVE = 6_000;

/** Counts 1..STEPS, one tool call a step, reading where it is from the last tool result only. */
const counting: TurnPicker = (prompt) => {
  const last = prompt.filter((message) => message.role === 'tool').at(-1);
  const done = last ? Number(/"n":(\d+)/.exec(JSON.stringify(last))![1]) : 0;
  if (done >= STEPS) return { text: `Counted to ${done}.` };
  return { toolCalls: [{ toolName: 'count', args: { id: `${done + 1}` } }] };
};

function countingAgent(id: string, compact?: ConversationCompactor, local = false) {
  const count = recordingTool('count', {
    result: (input) => ({ n: Number(input.id), pad: 'x'.repeat(600) }),
  });
  const model = scriptedModel(counting, id);
  const agent = new Agent({
    id,
    instructions: 'Count.',
    model,
    tools: { count: count.tool },
    defaultOptions: { maxSteps: STEPS + 5 },
    history: LIMITS,
    ...(compact ? { conversation: { compactAboveBytes: COMPACT_ABOVE, compact } } : {}),
    ...(local ? { execution: { modelSteps: 'local' as const } } : {}),
  });
  return { agent, model, count };
}

/** The conversation a prompt held, without the system prompt. */
const conversationOf = (model: ScriptedModel, index: number) =>
  model.prompts[index]!.filter((message) => message.role !== 'system');

const compactionsOf = (audit: AuditEntry[]) =>
  audit.filter((entry): entry is CompactionAuditEntry => entry.type === 'compaction');

describe('conversation compaction', () => {
  const kept = countingAgent('compact-keep', keepRecentMessages(4));
  const summarizer = scriptedModel(() => ({ text: 'Counted some numbers already.' }), 'sum');
  const summarized = countingAgent(
    'compact-summary',
    summarizeOlderMessages({ model: summarizer, keep: 4 }),
    true,
  );
  const plain = countingAgent('compact-none');
  const broken = countingAgent('compact-broken', (messages) => messages.slice(-1));
  let tollgate: Tollgate;
  let client: Client;

  beforeAll(async () => {
    const { Tollgate } = await import('../src/index.js');
    tollgate = new Tollgate({
      agents: Object.fromEntries(
        [kept, summarized, plain, broken].map(({ agent }) => [agent.id, agent]),
      ),
      temporal: { taskQueue: uniqueId('test-compaction') },
    });
    await tollgate.startWorker();
    client = await tollgate.client();
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  /**
   * Replays every execution of the run against the current workflow code and returns how many
   * recorded the compaction patch.
   */
  async function replayEveryExecution(workflowId: string): Promise<number> {
    let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
    let patchedExecutions = 0;
    while (runId) {
      const history: proto.temporal.api.history.v1.IHistory = await client.workflow
        .getHandle(workflowId, runId)
        .fetchHistory();
      await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, runId);
      if (patchesOf(history).includes(COMPACTION_PATCH)) patchedExecutions++;
      runId =
        history.events![0]!.workflowExecutionStartedEventAttributes!.continuedExecutionRunId ||
        undefined;
    }
    return patchedExecutions;
  }

  /** Each compaction's next model step was sent the compacted conversation, not the old one. */
  function expectCompactedPrompts(model: ScriptedModel, compactions: CompactionAuditEntry[]) {
    for (const entry of compactions) {
      const before = conversationOf(model, entry.step - 1);
      const after = conversationOf(model, entry.step);
      expect(after).toHaveLength(entry.messagesAfter);
      // The step's own call and result came after its prompt.
      expect(before.length + 2).toBe(entry.messagesBefore);
      expect(JSON.stringify(after[0])).toContain('Count, please.');
      // The first step's result is gone from the prompt.
      expect(JSON.stringify(after)).not.toMatch(/"n":1,/);
    }
  }

  it('finishes a run whose conversation outgrows the carry limit, compacting it on the worker across continue-as-new', async () => {
    const memory = { thread: uniqueId('compact'), resource: 'user-1' };
    const stream = await tollgate.getAgent('compact-keep').stream('Count, please.', { memory });
    await chunksOf(stream);
    expect(await stream.finishReason).toBe('stop');
    expect(await stream.text).toBe(`Counted to ${STEPS}.`);
    // Every step ran its tool once.
    expect(kept.count.executions.map((e) => (e.input as { id: string }).id)).toEqual(
      Array.from({ length: STEPS }, (_, i) => `${i + 1}`),
    );
    expect(await executionsOf(client, stream.runId)).toBeGreaterThanOrEqual(3);

    const compactions = compactionsOf(
      await tollgate.getAgent('compact-keep').getAuditTrail(stream.runId),
    );
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    for (const entry of compactions) {
      expect(entry.bytesBefore).toBeGreaterThan(COMPACT_ABOVE);
      expect(entry.bytesAfter).toBeLessThan(entry.bytesBefore / 2);
      expect(entry.messagesDropped).toBe(entry.messagesBefore - entry.messagesAfter);
      // The request, then the last two steps (call, result).
      expect(entry.messagesAfter).toBe(5);
    }
    expectCompactedPrompts(kept.model, compactions);
    // No prompt was much larger than the threshold.
    for (const prompt of kept.model.prompts) {
      expect(JSON.stringify(prompt).length).toBeLessThan(COMPACT_ABOVE + 3_000);
    }

    // The thread holds the run's compacted conversation, its request once.
    const thread = await client.workflow
      .getHandle(threadWorkflowId('compact-keep', memory.resource, memory.thread))
      .query<JsonValue[], [{ last: number }]>(THREAD_MESSAGES.messages, { last: 1000 });
    const final = conversationOf(kept.model, kept.model.prompts.length - 1);
    expect(thread).toHaveLength(final.length + 1);
    expect(JSON.stringify(thread).match(/Count, please\./g)).toHaveLength(1);
    expect(JSON.stringify(thread.at(-1))).toContain(`Counted to ${STEPS}.`);
    expect(await replayEveryExecution(stream.runId)).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('fails typed, naming the compaction option, when a run without it outgrows the carry limit', async () => {
    const stream = await tollgate.getAgent('compact-none').stream('Count, please.');
    const chunks = await chunksOf(stream);
    expect(await stream.finishReason).toBe('error');
    const error = chunks.find((chunk) => chunk.type === 'error')!;
    expect(error.type === 'error' && error.payload.code).toBe('RUN_HISTORY_TOO_LARGE');
    expect(error.type === 'error' && error.payload.error).toContain(
      'conversation: { compact: keepRecentMessages(...) }',
    );
    expect(plain.count.executions.length).toBeLessThan(STEPS);
  }, 120_000);

  it('summarizes the older messages with a model, in a local-mode run', async () => {
    const stream = await tollgate.getAgent('compact-summary').stream('Count, please.');
    await chunksOf(stream);
    expect(await stream.finishReason).toBe('stop');
    expect(await stream.text).toBe(`Counted to ${STEPS}.`);
    const compactions = compactionsOf(
      await tollgate.getAgent('compact-summary').getAuditTrail(stream.runId),
    );
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    expect(summarizer.prompts).toHaveLength(compactions.length);
    // The summarizer read the dropped steps; the next step read its summary.
    expect(JSON.stringify(summarizer.prompts[0])).toMatch(/n\\?":1,/);
    const first = conversationOf(summarized.model, compactions[0]!.step);
    expect(JSON.stringify(first[1])).toContain('Counted some numbers already.');
    expect(JSON.stringify(first[1])).toContain(SUMMARY_PREFIX.split('\n')[0]);
    expect(first).toHaveLength(compactions[0]!.messagesAfter);
    // The patch is decided before the first local step, so replay finds its marker where it was.
    expect(await replayEveryExecution(stream.runId)).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('fails the run with INVALID_COMPACTION when the hook orphans a tool result, changing nothing', async () => {
    const stream = await tollgate.getAgent('compact-broken').stream('Count, please.');
    const chunks = await chunksOf(stream);
    expect(await stream.finishReason).toBe('error');
    const error = chunks.find((chunk) => chunk.type === 'error')!;
    expect(error.type === 'error' && error.payload.error).toContain('conversation.compact');
    const failure = await runFailure(tollgate, stream.runId);
    expect(failure.type).toBe('tollgate.INVALID_COMPACTION');
    expect(failure.message).toContain('without the call before it');

    // The conversation is whole: every step's call and result, and no model step after.
    const steps = broken.count.executions.length;
    expect(broken.model.prompts).toHaveLength(steps);
    const conversation = await client.workflow
      .getHandle(stream.runId)
      .query<JsonValue[], [{ upTo: number }]>(QUERIES.conversation, { upTo: 10_000 });
    expect(conversation).toHaveLength(1 + 2 * steps);
    const audit = await tollgate.getAgent('compact-broken').getAuditTrail(stream.runId);
    expect(compactionsOf(audit)).toHaveLength(0);
  }, 120_000);
});
