/**
 * What a run publishes about itself (its `TollgateStatus` and `TollgatePendingTools` search
 * attributes, and a sub-agent's reports to its parent) is published when it changes, not again
 * when it is the same: counted in the histories of real runs.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { z } from 'zod';
import { Agent, createTool, type Tollgate } from '../src/index.js';
import { CHILD_STATUS_SIGNAL } from '../src/common/wire.js';
import { SA_KEYS } from '../src/common/search-attribute-keys.js';

import { scriptedModel, type TurnPicker } from '../src/testing/index.js';
import { workflowBundle } from '../src/worker.js';
import {
  eventually,
  hostAgents,
  lastToolOutputs,
  outputsText,
  recordingTool,
} from './support/harness.js';
import { PUBLISH_ON_CHANGE_PATCH } from '../src/workflows/patch-ids.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const text = (data: Uint8Array | null | undefined) => Buffer.from(data ?? []).toString();

/** Each status upsert of a history: `[status, pendingTools]`, as JSON text. */
function statusUpserts(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const fields =
      event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
    const status = fields?.[SA_KEYS.status.name];
    if (!status) return [];
    const pending = fields[SA_KEYS.pendingTools.name];
    return [`[${text(status.data)},${text(pending?.data) || 'null'}]`];
  });
}

/** The reports a sub-agent's run sent its parent: what it waits on, without the version. */
function reportsSent(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const signal = event.signalExternalWorkflowExecutionInitiatedEventAttributes;
    if (signal?.signalName !== CHILD_STATUS_SIGNAL) return [];
    const { idle, waiting } = JSON.parse(text(signal.input?.payloads?.[0]?.data)) as {
      idle: boolean;
      waiting: Array<{ toolCallId: string }>;
    };
    return [JSON.stringify({ idle, waiting: waiting.map((call) => call.toolCallId) })];
  });
}

/** The patches a history recorded. */
function patchesOf(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    return (marker.details?.['patch-data']?.payloads ?? []).map(
      (payload) => (JSON.parse(text(payload.data)) as { id: string }).id,
    );
  });
}

/** The values with each run of equal neighbours cut to one. */
function changes(values: string[]): string[] {
  return values.filter((value, i) => value !== values[i - 1]);
}

/** "<tool> <id>" calls that tool with { id }, and "drop <id>" delegates; then it reports. */
const picker: TurnPicker = (prompt) => {
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: `Got: ${outputsText(outputs)}` };
  const [, tool, id] = /([a-z-]+) ([\w-]+)/.exec(JSON.stringify(prompt.at(-1)?.content)) ?? [];
  return {
    toolCalls: [
      {
        toolName: tool!,
        args: tool!.startsWith('agent-') ? { message: `drop ${id}` } : { id: id! },
      },
    ],
  };
};

describe('status publication: only what changed', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const dropTable = recordingTool('drop-table', { requireApproval: true });
  const transfer = createTool({
    id: 'transfer',
    inputSchema: z.object({ id: z.string() }),
    requireApproval: true,
    approval: { quorum: 2 },
    execute: async (input) => ({ done: input.id }),
  });
  const db = new Agent({
    id: 'status-db',
    description: 'Drops tables',
    model: scriptedModel(picker),
    tools: { drop: dropTable.tool },
  });
  const ops = new Agent({
    id: 'status-ops',
    description: 'Runs operations',
    model: scriptedModel((prompt) => {
      const outputs = lastToolOutputs(prompt);
      if (outputs) return { text: `Ops: ${outputsText(outputs)}` };
      return { toolCalls: [{ toolName: 'agent-db', args: { message: 'drop t1' } }] };
    }),
    agents: { db },
  });
  const top = new Agent({
    id: 'status-top',
    model: scriptedModel(picker),
    tools: { 'delete-record': deleteRecord.tool, transfer },
    agents: { ops },
  });
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([top], 'status');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  const agent = () => tollgate.getAgent('status-top');
  const history = async (runId: string) =>
    (await (await tollgate.client()).workflow.getHandle(runId).fetchHistory()).events ?? [];
  /** A history that left repeats out replays: the patch is asked where it was recorded. */
  const replays = async (runId: string) => {
    const recorded = await (await tollgate.client()).workflow.getHandle(runId).fetchHistory();
    await expect(
      Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, recorded, runId),
    ).resolves.toBeUndefined();
  };

  it('upserts each status of an approved run once, and records no patch for it', async () => {
    const first = await agent().generate('delete-record r1');
    expect(first.finishReason).toBe('suspended');
    const done = await agent().approveToolCallGenerate({ runId: first.runId });
    expect(done.finishReason).toBe('stop');
    expect(deleteRecord.executions).toHaveLength(1);
    const events = await history(first.runId);
    expect(statusUpserts(events)).toEqual([
      '["awaiting-approval",["delete-record"]]',
      '["running",null]',
      '["completed",null]',
    ]);
    // Nothing was left out, so nothing asked the patch: the history is as before it.
    expect(patchesOf(events)).not.toContain(PUBLISH_ON_CHANGE_PATCH);
  });

  it('upserts a quorum wait once, however many approvals it records before the last', async () => {
    const first = await agent().generate('transfer q1');
    const recorded = await agent().approveToolCallGenerate({
      runId: first.runId,
      decidedBy: { id: 'alice' },
    });
    expect(recorded.finishReason).toBe('suspended');
    // The upsert left out changes nothing outside: the run is still listed as waiting.
    await eventually(async () => {
      const listed = await agent().listSuspendedRuns();
      expect(listed.runs.map((run) => run.runId)).toContain(first.runId);
    });
    const done = await agent().approveToolCallGenerate({
      runId: first.runId,
      decidedBy: { id: 'bob' },
    });
    expect(done.finishReason).toBe('stop');
    const events = await history(first.runId);
    const upserts = statusUpserts(events);
    expect(upserts).toEqual(changes(upserts));
    expect(upserts).toEqual([
      '["awaiting-approval",["transfer"]]',
      '["running",null]',
      '["completed",null]',
    ]);
    expect(patchesOf(events)).toContain(PUBLISH_ON_CHANGE_PATCH);
    await replays(first.runId);
  });

  it('sends a parent only reports that changed, and each run of the tree upserts each status once', async () => {
    const first = await agent().generate('agent-ops t1');
    expect(first.finishReason).toBe('suspended');
    const done = await agent().approveToolCallGenerate({ runId: first.runId });
    expect(done.finishReason).toBe('stop');
    expect(dropTable.executions).toHaveLength(1);
    const [call] = (await history(first.runId)).flatMap(
      (event) => event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? [],
    );
    const runs = { top: first.runId, ops: call!, db: '' };
    runs.db = (await history(runs.ops)).flatMap(
      (event) => event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? [],
    )[0]!;
    for (const runId of Object.values(runs)) {
      const upserts = statusUpserts(await history(runId));
      expect([runId, upserts]).toEqual([runId, changes(upserts)]);
      expect(upserts.at(-1)).toBe('["completed",null]');
    }
    // The middle run: waiting on its child's call, then running; completing changes nothing more.
    const reports = reportsSent(await history(runs.ops));
    expect(reports).toEqual(changes(reports));
    expect(reports).toHaveLength(2);
    expect(JSON.parse(reports[1]!)).toEqual({ idle: false, waiting: [] });
    for (const runId of Object.values(runs)) await replays(runId);
  });
});
