import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../src/worker.js';
import { Agent, createTool, Tollgate, TollgateError } from '../src/index.js';
import type { RunResult } from '../src/common/run-types.js';
import { scriptedModel, type TurnPicker } from '../src/testing/index.js';
import type { ChildWorker } from '../bench/support/child.js';
import { testChildWorker } from './support/child-worker.js';
import { within } from '../bench/support/concurrency.js';
import { chunksOf, hostAgents, recordingTool, uniqueQueue } from './support/harness.js';
import type { LocalEffectLine } from './support/local-worker-process.js';
import { comparable } from './support/chunk-compare.js';

/** The agent `test/support/local-worker-process.ts` hosts. */
const LOCAL_AGENT_ID = 'local-restart-agent';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Looks up two records (ungated), deletes one (gated by the tool), then answers. */
const script: TurnPicker = (prompt) => {
  const last = prompt.at(-1);
  if (last?.role !== 'tool')
    return {
      text: ['Looking ', 'up.'],
      toolCalls: [
        { toolName: 'lookup', args: { id: 'a' }, toolCallId: 'call-a' },
        { toolName: 'lookup', args: { id: 'b' }, toolCallId: 'call-b' },
      ],
    };
  const name = last.content.find((part) => part.type === 'tool-result')?.toolName;
  if (name === 'lookup')
    return { toolCalls: [{ toolName: 'delete', args: { id: 'a' }, toolCallId: 'call-d' }] };
  return { text: ['All ', 'done.'] };
};

function agentPair(id: string, local: boolean) {
  const lookup = recordingTool('lookup');
  const remove = recordingTool('delete', { requireApproval: true });
  const lookupTool = local ? createTool({ ...lookup.tool, local: true }) : lookup.tool;
  const agent = new Agent({
    id,
    instructions: 'You are a test agent.',
    model: scriptedModel(script, id),
    tools: { lookup: lookupTool, delete: remove.tool },
    ...(local ? { execution: { modelSteps: 'local' as const } } : {}),
  });
  return { agent, lookups: lookup.executions, deletes: remove.executions };
}

async function historyOf(tollgate: Tollgate, runId: string): Promise<HistoryEvent[]> {
  const client = await tollgate.client();
  return (await client.workflow.getHandle(runId).fetchHistory()).events ?? [];
}

function scheduledActivities(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
}

/** Local activities' markers (patches record markers too, under other names). */
function markers(events: HistoryEvent[]): number {
  return events.filter(
    (event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity',
  ).length;
}

describe('local execution', () => {
  const local = agentPair('local-agent', true);
  const remote = agentPair('remote-agent', false);
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([local.agent, remote.agent], 'local-execution');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  it('refuses a local tool that requires approval, at definition', () => {
    const define = () =>
      createTool({
        id: 'gated-local',
        inputSchema: recordingTool('x').tool.inputSchema,
        local: true,
        requireApproval: true,
        execute: () => 'never',
      });
    expect(define).toThrow(TollgateError);
    expect(define).toThrow(/requireApproval cannot be local/);
    try {
      define();
    } catch (error) {
      expect((error as TollgateError).code).toBe('INVALID_TOOL');
    }
  });

  it('runs model steps and ungated tools as markers, the gated tool as an activity after approval, with the chunk log of remote mode', async () => {
    const run = async (id: string) => {
      const agent = tollgate.getAgent(id);
      const first = await agent.stream('Look up a and b, then delete a.');
      const firstChunks = await within(chunksOf(first), 30_000, `${id} parking`);
      const pending = await first.suspendPayload;
      expect(pending).toMatchObject({ toolName: 'delete', args: { id: 'a' } });
      const approved = await agent.approveToolCall({ runId: first.runId });
      const rest = await within(chunksOf(approved), 30_000, `${id} after approval`);
      return { runId: first.runId, chunks: [...firstChunks, ...rest] };
    };
    const viaLocal = await run('local-agent');
    const viaRemote = await run('remote-agent');

    // Each lookup ran once and the approved delete ran once, in both modes.
    expect(local.lookups.map((e) => e.input)).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(local.deletes.map((e) => e.input)).toEqual([{ id: 'a' }]);
    expect(remote.lookups).toHaveLength(2);
    expect(remote.deletes).toHaveLength(1);
    // Local calls are keyed by position; the gated call keeps <runId>:<toolCallId>.
    expect(local.lookups.map((e) => e.idempotencyKey)).toEqual([
      `${viaLocal.runId}:step-1:call-0`,
      `${viaLocal.runId}:step-1:call-1`,
    ]);
    expect(local.deletes[0]!.idempotencyKey).toBe(`${viaLocal.runId}:call-d`);

    const localEvents = await historyOf(tollgate, viaLocal.runId);
    expect(scheduledActivities(localEvents)).toEqual(['executeTool']);
    // The describe (patch tollgate-local-describe: the starter hosts the agent), then two
    // stretches (patch tollgate-stretches): steps 1-2 with the two lookups, up to the gated
    // delete; step 3 after the approval.
    expect(markers(localEvents)).toBe(3);
    const remoteEvents = await historyOf(tollgate, viaRemote.runId);
    expect(markers(remoteEvents)).toBe(0);
    expect(scheduledActivities(remoteEvents).sort()).toEqual(
      [
        'describeAgent',
        'modelStep',
        'modelStep',
        'modelStep',
        'executeTool',
        'executeTool',
        'executeTool',
      ].sort(),
    );
    // Fewer events per run: a marker instead of an activity's scheduled/started/completed.
    expect(localEvents.length).toBeLessThan(remoteEvents.length);

    expect(comparable(viaLocal.chunks)).toEqual(comparable(viaRemote.chunks));
    // A local activity's result may reach the workflow a task after its marker: replay still fits.
    const client = await tollgate.client();
    for (const runId of [viaLocal.runId, viaRemote.runId]) {
      const history = await client.workflow.getHandle(runId).fetchHistory();
      await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, runId);
    }
    expect(viaLocal.chunks.filter((c) => c.type === 'text-delta').length).toBeGreaterThan(0);
  }, 90_000);

  it('runs a declined gated call zero times in local mode', async () => {
    const before = local.deletes.length;
    const agent = tollgate.getAgent('local-agent');
    const first = await agent.stream('Look up a and b, then delete a.');
    expect(await within(first.finishReason, 30_000, 'parking')).toBe('suspended');
    const declined = await agent.declineToolCall({ runId: first.runId });
    expect(await within(declined.finishReason, 30_000, 'after decline')).toBe('stop');
    expect(local.deletes.length).toBe(before);
    expect(scheduledActivities(await historyOf(tollgate, first.runId))).toEqual([]);
  }, 60_000);

  it('runs a local tool that a request policy gates as an ordinary activity, after approval', async () => {
    const before = local.lookups.length;
    const agent = tollgate.getAgent('local-agent');
    const first = await agent.stream('Look up a and b, then delete a.', {
      requireToolApproval: true,
    });
    expect(await within(first.finishReason, 30_000, 'parking')).toBe('suspended');
    expect(local.lookups.length).toBe(before);
    const finishes: string[] = [];
    for (const toolCallId of ['call-a', 'call-b', 'call-d']) {
      const stream = await agent.approveToolCall({ runId: first.runId, toolCallId, wait: 30_000 });
      finishes.push(await within(stream.finishReason, 30_000, `after approving ${toolCallId}`));
    }
    expect(finishes.at(-1)).toBe('stop');
    expect(local.lookups.length).toBe(before + 2);
    expect(scheduledActivities(await historyOf(tollgate, first.runId))).toEqual([
      'executeTool',
      'executeTool',
      'executeTool',
    ]);
  }, 60_000);
});

describe('local execution: a worker killed mid-run', () => {
  const queue = uniqueQueue('local-kill');
  const workers: ChildWorker[] = [];
  let tollgate: Tollgate | undefined;
  let dir: string | undefined;

  afterAll(async () => {
    await tollgate?.shutdown();
    for (const worker of workers) await worker.stop('SIGKILL').catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reruns the local model step and tool since the last workflow task, with the same idempotency key', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-local-kill-'));
    const effectsFile = join(dir, 'effects.jsonl');
    await writeFile(effectsFile, '');
    const read = async () =>
      (await readFile(effectsFile, 'utf8'))
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as LocalEffectLine);
    const spawn = async (name: string) => {
      const script = fileURLToPath(new URL('./support/local-worker-process.js', import.meta.url));
      const worker = testChildWorker(name, script, queue, { EFFECTS_FILE: effectsFile });
      workers.push(worker);
      await worker.whenReady(60_000);
      return worker;
    };
    const a = await spawn('worker A');
    tollgate = new Tollgate({ temporal: { taskQueue: queue } });
    const stream = await tollgate.getAgent(LOCAL_AGENT_ID).stream('Look rec-1 up');
    const deadline = Date.now() + 20_000;
    while (!(await read()).some((line) => line.event === 'started')) {
      if (Date.now() > deadline) throw new Error('The local tool never started on worker A.');
      await sleep(50);
    }
    expect(await a.stop('SIGKILL')).toBe('SIGKILL');
    const b = await spawn('worker B');
    const client = await tollgate.client();
    const result = (await within(
      client.workflow.getHandle(stream.runId).result() as Promise<RunResult>,
      90_000,
      'the run on worker B',
    ).catch(async (error: Error) => {
      const events = await historyOf(tollgate!, stream.runId);
      const types = events.map(
        (e) =>
          `${e.eventId} ${e.eventType} ${JSON.stringify(e.workflowTaskFailedEventAttributes?.failure?.message ?? e.workflowTaskTimedOutEventAttributes ?? '')}`,
      );
      throw new Error(
        `${error.message}\n${types.join('\n')}\n${JSON.stringify(await read())}\n${b.describe()}`,
      );
    })) as RunResult;
    expect(result).toMatchObject({ finishReason: 'stop', text: 'Found it.' });

    const lines = await read();
    const starts = lines.filter((line) => line.event === 'started');
    // The tool started on both workers: worker A's attempt was lost with its workflow task.
    expect(starts.map((line) => line.pid)).toEqual([a.pid, b.pid]);
    // The key is the same in both attempts.
    expect(starts[0]!.key).toBe(`${stream.runId}:step-1:call-0`);
    expect(starts[1]!.key).toBe(starts[0]!.key);
    // The model step and the tool are one stretch: worker B asked the model again and got another
    // call id, and the key still held.
    const lookups = lines.filter((line) => line.turn === 'lookup').map((line) => line.pid);
    expect(lookups).toEqual([a.pid, b.pid]);
    expect(starts[0]!.toolCallId).not.toBe(starts[1]!.toolCallId);
    expect(lines.filter((line) => line.turn === 'after slow-lookup').map((l) => l.pid)).toEqual([
      b.pid,
    ]);
    const events = await historyOf(tollgate, stream.runId);
    // Started by a runtime without the agent: described as an activity, as before.
    expect(scheduledActivities(events)).toEqual(['describeAgent']);
    // Two stretches: step 1 and its lookup (whose 3 s pass the time bound), then the answer.
    expect(markers(events)).toBe(2);
    expect(await b.stop('SIGTERM')).toBe('code 0');
  }, 180_000);
});
