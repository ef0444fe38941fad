/**
 * Stretches (docs/local-execution.md "Stretches"): a local-mode run makes consecutive model steps
 * whose calls are all ungated local calls in one local activity, and logs them as single steps.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../src/worker.js';
import { Agent, createTool, type Chunk, type Tollgate } from '../src/index.js';
import { scriptedModel, type TurnPicker } from '../src/testing/index.js';
import { z } from 'zod';
import { within } from '../bench/support/concurrency.js';
import { chunksOf, hostAgents, recordingTool } from './support/harness.js';
import { comparable } from './support/chunk-compare.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * "Look up <n>": one lookup a step (r1 … rn), with a line of text each; then, if the prompt says
 * "delete", a gated delete of r1 (or, if it says "ask", a local call that suspends); then the
 * answer.
 */
const script: TurnPicker = (prompt) => {
  const asked = JSON.stringify(prompt.find((message) => message.role === 'user')?.content ?? '');
  const wanted = Number(/Look up (\d+)/.exec(asked)?.[1] ?? 1);
  const results = prompt.filter((message) => message.role === 'tool');
  const last = results.at(-1);
  const lastTool = last?.content.find((part) => part.type === 'tool-result')?.toolName;
  if (lastTool === 'delete') return { text: ['All ', 'done.'] };
  if (lastTool === 'ask') return { text: `Asked: ${JSON.stringify(last?.content)}` };
  if (results.length < wanted) {
    const id = `r${results.length + 1}`;
    return {
      text: [`Looking `, `up ${id}.`],
      toolCalls: [
        {
          toolName: asked.includes('pages') ? 'page' : 'lookup',
          args: { id },
          toolCallId: `call-${id}`,
        },
      ],
    };
  }
  if (asked.includes('ask'))
    return { toolCalls: [{ toolName: 'ask', args: {}, toolCallId: 'call-ask' }] };
  if (asked.includes('delete'))
    return { toolCalls: [{ toolName: 'delete', args: { id: 'r1' }, toolCallId: 'call-d' }] };
  return { text: [`Found `, `${wanted}.`] };
};

function scriptedAgent(id: string, local: boolean) {
  const lookup = recordingTool('lookup');
  const remove = recordingTool('delete', { requireApproval: true });
  // 150 KB a call: two steps pass a stretch's byte bound (STRETCH_MAX_BYTES).
  const page = recordingTool('page', {
    result: (input) => ({ id: input.id, text: 'x'.repeat(150_000) }),
  });
  const asks: unknown[] = [];
  const ask = createTool({
    id: 'ask',
    inputSchema: z.object({}),
    suspendSchema: z.object({ question: z.string() }),
    resumeSchema: z.object({ city: z.string() }),
    local: true,
    execute: async (_input, context) => {
      asks.push(context.agent.resumeData ?? null);
      const city = context.agent.resumeData?.city;
      return city ? { city } : await context.agent.suspend({ question: 'Which city?' });
    },
  });
  const agent = new Agent({
    id,
    instructions: 'You are a test agent.',
    model: scriptedModel(script, id),
    tools: {
      lookup: local ? createTool({ ...lookup.tool, local: true }) : lookup.tool,
      delete: remove.tool,
      ask,
      page: local ? createTool({ ...page.tool, local: true }) : page.tool,
    },
    ...(local ? { execution: { modelSteps: 'local' as const } } : {}),
  });
  return {
    agent,
    lookups: lookup.executions,
    deletes: remove.executions,
    pages: page.executions,
    asks,
  };
}

/** Local activities' markers (patches record markers too, under other names). */
function markers(events: HistoryEvent[]): number {
  return events.filter(
    (event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity',
  ).length;
}

function scheduledActivities(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
}

describe('stretches of local steps', () => {
  const local = scriptedAgent('stretch-local', true);
  const remote = scriptedAgent('stretch-remote', false);
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([local.agent, remote.agent], 'stretches');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  async function historyOf(runId: string): Promise<HistoryEvent[]> {
    const client = await tollgate.client();
    return (await client.workflow.getHandle(runId).fetchHistory()).events ?? [];
  }

  async function gateEntries(agentId: string, runId: string): Promise<unknown[]> {
    const audit = await tollgate.getAgent(agentId).getAuditTrail(runId);
    return audit
      .filter((entry) => entry.type === 'gate')
      .map(({ at: _at, ...entry }) => entry as unknown);
  }

  it('runs five steps of ungated local lookups as one local activity, with the chunks, audit and keys of single steps', async () => {
    const run = async (id: string) => {
      const stream = await tollgate.getAgent(id).stream('Look up 4 records.');
      const chunks: Chunk[] = await within(chunksOf(stream), 30_000, id);
      expect(await stream.finishReason).toBe('stop');
      expect(await stream.text).toBe(
        'Looking up r1.Looking up r2.Looking up r3.Looking up r4.Found 4.',
      );
      return { runId: stream.runId, chunks };
    };
    const viaLocal = await run('stretch-local');
    const viaRemote = await run('stretch-remote');

    // Each lookup ran once, keyed by its position.
    expect(local.lookups.map((e) => e.input)).toEqual(
      ['r1', 'r2', 'r3', 'r4'].map((id) => ({ id })),
    );
    expect(local.lookups.map((e) => e.idempotencyKey)).toEqual(
      [1, 2, 3, 4].map((step) => `${viaLocal.runId}:step-${step}:call-0`),
    );
    expect(remote.lookups).toHaveLength(4);
    // What a client sees is what the unstretched (remote) path produced, chunk for chunk.
    expect(comparable(viaLocal.chunks)).toEqual(comparable(viaRemote.chunks));
    expect(viaLocal.chunks.filter((c) => c.type === 'step-start')).toHaveLength(5);
    // The same gate audit entries as single steps record: ungated, by the agent's default.
    const gates = await gateEntries('stretch-local', viaLocal.runId);
    expect(gates).toHaveLength(4);
    expect(gates).toEqual(await gateEntries('stretch-remote', viaRemote.runId));
    expect(gates[0]).toMatchObject({ type: 'gate', gated: false, source: 'agent' });

    // The describe's marker, then one for all five steps and four lookups; nothing ran as an
    // activity (the starter hosts the agent: it is described locally, docs/local-execution.md).
    const events = await historyOf(viaLocal.runId);
    expect(markers(events)).toBe(2);
    expect(scheduledActivities(events)).toEqual([]);
    const history = await (
      await tollgate.client()
    ).workflow
      .getHandle(viaLocal.runId)
      .fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: await workflowBundle() },
      history,
      viaLocal.runId,
    );
  }, 90_000);

  it('ends a stretch at a gated call, which waits for its approval and then runs once', async () => {
    const before = { lookups: local.lookups.length, deletes: local.deletes.length };
    const agent = tollgate.getAgent('stretch-local');
    const first = await agent.stream('Look up 2 records, then delete r1.');
    await within(chunksOf(first), 30_000, 'parking');
    expect(await first.finishReason).toBe('suspended');
    expect(await first.suspendPayload).toMatchObject({ toolName: 'delete', args: { id: 'r1' } });
    expect(local.lookups.length - before.lookups).toBe(2);
    expect(local.deletes.length).toBe(before.deletes);
    // The describe, then steps 1-3 (two lookups, then the gated call, not run) in one stretch.
    expect(markers(await historyOf(first.runId))).toBe(2);

    const approved = await agent.approveToolCall({ runId: first.runId });
    await within(chunksOf(approved), 30_000, 'after approval');
    expect(await approved.finishReason).toBe('stop');
    expect(await approved.text).toBe('All done.');
    expect(local.deletes.length - before.deletes).toBe(1);
    expect(local.deletes.at(-1)!.idempotencyKey).toBe(`${first.runId}:call-d`);
    const events = await historyOf(first.runId);
    expect(scheduledActivities(events)).toEqual(['executeTool']);
    // The answer after the approval is a second stretch of one step.
    expect(markers(events)).toBe(3);
    const gates = await gateEntries('stretch-local', first.runId);
    expect(gates.map((g) => (g as { gated: boolean }).gated)).toEqual([false, false, true]);
  }, 90_000);

  it('runs the gated call at the end of a stretch zero times after a decline', async () => {
    const before = { lookups: local.lookups.length, deletes: local.deletes.length };
    const agent = tollgate.getAgent('stretch-local');
    const first = await agent.stream('Look up 3 records, then delete r1.');
    expect(await within(first.finishReason, 30_000, 'parking')).toBe('suspended');
    const declined = await agent.declineToolCall({ runId: first.runId });
    expect(await within(declined.finishReason, 30_000, 'after decline')).toBe('stop');
    expect(local.lookups.length - before.lookups).toBe(3);
    expect(local.deletes.length).toBe(before.deletes);
    expect(scheduledActivities(await historyOf(first.runId))).toEqual([]);
  }, 60_000);

  it('hands a call that suspends inside a stretch to the workflow, which waits for the resume and runs it again', async () => {
    const before = { lookups: local.lookups.length, asks: local.asks.length };
    const agent = tollgate.getAgent('stretch-local');
    const first = await agent.stream('Look up 1 record, then ask.');
    expect(await within(first.finishReason, 30_000, 'suspending')).toBe('suspended');
    expect(await first.suspendPayload).toMatchObject({
      toolCallId: 'call-ask',
      suspendPayload: { question: 'Which city?' },
    });
    expect(local.asks.slice(before.asks)).toEqual([null]);
    // The describe, then steps 1-2 (the lookup, then the call that suspended) in one stretch.
    expect(markers(await historyOf(first.runId))).toBe(2);

    const resumed = await agent.resumeStream({ city: 'Oslo' }, { runId: first.runId });
    expect(await within(resumed.finishReason, 30_000, 'after resume')).toBe('stop');
    expect(await resumed.text).toContain('Oslo');
    expect(local.asks.slice(before.asks)).toEqual([null, { city: 'Oslo' }]);
    expect(local.lookups.length - before.lookups).toBe(1);
    // The resumed call as a local call of its own, then a stretch of one step that answers.
    const events = await historyOf(first.runId);
    expect(markers(events)).toBe(4);
    expect(scheduledActivities(events)).toEqual([]);
  }, 60_000);

  it('starts a new stretch once the steps of one passed its byte bound', async () => {
    const before = local.pages.length;
    const output = await tollgate.getAgent('stretch-local').generate('Look up 4 pages.');
    expect(output.finishReason).toBe('stop');
    expect(output.steps).toHaveLength(5);
    expect(local.pages.slice(before).map((e) => e.input)).toEqual(
      ['r1', 'r2', 'r3', 'r4'].map((id) => ({ id })),
    );
    // The describe; 150 KB a step: steps 1-2, then 3-4 (each pair past 256 KiB), then the answer.
    expect(markers(await historyOf(output.runId))).toBe(4);
  }, 60_000);
});
