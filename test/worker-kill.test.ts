import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Tollgate } from '../src/index.js';
import type { RunResult } from '../src/common/run-types.js';
import type { EffectLine } from './support/worker-process.js';
import type { ChildWorker } from '../bench/support/child.js';
import { testChildWorker } from './support/child-worker.js';
import { within } from '../bench/support/concurrency.js';
import { uniqueQueue } from './support/harness.js';

const WORKER_SCRIPT = fileURLToPath(new URL('./support/worker-process.js', import.meta.url));
const AGENT_ID = 'restart-agent';
const STORY = 'Once upon a time a worker died; another finished the story.';

async function effects(file: string): Promise<EffectLine[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as EffectLine);
}

/** Polls the effects file until `found` picks a line; fails naming `what` and the file. */
async function waitForEffect(
  file: string,
  what: string,
  found: (line: EffectLine) => boolean,
  timeoutMs = 20_000,
): Promise<EffectLine> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = (await effects(file)).find(found);
    if (line) return line;
    if (Date.now() > deadline)
      throw new Error(
        `No ${what} within ${timeoutMs} ms; effects so far:\n${await readFile(file, 'utf8')}`,
      );
    await sleep(50);
  }
}

/** A run's activities as its history records them: type, last attempt, completed or not. */
async function activitiesOf(
  tollgate: Tollgate,
  runId: string,
): Promise<Array<{ type: string; attempt?: number; completed: boolean }>> {
  const events = (await (await tollgate.client()).workflow.getHandle(runId).fetchHistory()).events;
  const byScheduledId = new Map<string, { type: string; attempt?: number; completed: boolean }>();
  for (const event of events ?? []) {
    const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (type) byScheduledId.set(String(event.eventId), { type, completed: false });
    const started = event.activityTaskStartedEventAttributes;
    const activity = started && byScheduledId.get(String(started.scheduledEventId));
    if (activity) activity.attempt = started.attempt ?? 0;
    const completed = event.activityTaskCompletedEventAttributes;
    const done = completed && byScheduledId.get(String(completed.scheduledEventId));
    if (done) done.completed = true;
  }
  return [...byScheduledId.values()];
}

async function attemptsOf(tollgate: Tollgate, runId: string, type: string): Promise<number[]> {
  return (await activitiesOf(tollgate, runId))
    .filter((activity) => activity.type === type)
    .map((activity) => activity.attempt ?? 0);
}

/** Fails, saying why, if `type` already completed in the run: the kill came too late for it. */
async function expectUnfinished(tollgate: Tollgate, runId: string, type: string, what: string) {
  const done = (await activitiesOf(tollgate, runId)).filter(
    (activity) => activity.type === type && activity.completed,
  );
  if (done.length > 0)
    throw new Error(
      `Worker A was killed too late: ${what} had already completed, so the kill tests nothing. ` +
        "The machine was too slow for the test's timing windows (3 s tool, 8 s model stream).",
    );
}

describe('a worker process killed with SIGKILL mid-run', () => {
  const queue = uniqueQueue('worker-kill');
  const workers: ChildWorker[] = [];
  let tollgate: Tollgate | undefined;
  let dir: string | undefined;

  afterAll(async () => {
    await tollgate?.shutdown();
    for (const worker of workers) await worker.stop('SIGKILL').catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('leaves every run to a fresh worker: parked, mid-tool and mid-model runs all complete, effects happen once', async () => {
    const began = performance.now();
    dir = await mkdtemp(join(tmpdir(), 'tollgate-worker-kill-'));
    const effectsFile = join(dir, 'effects.jsonl');
    await writeFile(effectsFile, '');
    const spawnWorker = async (name: string) => {
      const env = { EFFECTS_FILE: effectsFile };
      const worker = testChildWorker(name, WORKER_SCRIPT, queue, env);
      workers.push(worker);
      await worker.whenReady(60_000);
      return worker;
    };

    const a = await spawnWorker('worker A');
    const workerAReady = performance.now();
    // This process hosts no worker: it only starts, follows and decides runs.
    tollgate = new Tollgate({ temporal: { taskQueue: queue } });
    const agent = tollgate.getAgent(AGENT_ID);

    // Run 1 parks on the gated tool.
    const parked = await agent.stream('Please delete rec-1');
    expect(await within(parked.finishReason, 30_000, 'run 1 parking')).toBe('suspended');
    const pending = await parked.suspendPayload;
    expect(pending).toMatchObject({ toolName: 'delete-record', args: { id: 'rec-1' } });

    // Run 3's model starts streaming (about 8 s); run 2 then reaches its 3 s tool.
    const story = await agent.stream('Tell me a story');
    const storyStarted = (
      await waitForEffect(effectsFile, "run 3's model turn", (l) => l.turn === 'story')
    ).at;
    const effect = await agent.stream('Apply the slow effect');
    const toolStarted = await waitForEffect(
      effectsFile,
      "run 2's slow-effect start",
      (l) => l.event === 'started' && l.key?.startsWith(`${effect.runId}:`) === true,
    );
    const key = toolStarted.key!;
    // A second into the story: some text is streamed, the rest is not.
    await sleep(Math.max(0, storyStarted + 1000 - Date.now()));

    expect(await a.stop('SIGKILL')).toBe('SIGKILL');
    const killed = performance.now();
    const atKill = await effects(effectsFile);
    // Proof that the kill landed mid-flight: neither the tool nor the story had finished.
    expect(atKill.filter((l) => l.event === 'effect')).toEqual([]);
    await expectUnfinished(tollgate, effect.runId, 'executeTool', "run 2's slow-effect");
    await expectUnfinished(tollgate, story.runId, 'modelStep', "run 3's model step");
    expect(await activitiesOf(tollgate, story.runId)).toEqual([
      expect.objectContaining({ type: 'describeAgent', completed: true }),
      { type: 'modelStep', completed: false },
    ]);

    const b = await spawnWorker('worker B');
    const workerBReady = performance.now();
    const approved = await within(
      agent.approveToolCall({
        runId: parked.runId,
        toolCallId: pending!.toolCallId,
        fingerprint: pending!.fingerprint,
        wait: 30_000,
      }),
      30_000,
      'the approval of run 1',
    );

    const client = await tollgate.client();
    const approvedAt = performance.now();
    const completedAt: Record<string, number> = {};
    const resultOf = (runId: string, name: string) =>
      within(client.workflow.getHandle(runId).result() as Promise<RunResult>, 45_000, name).then(
        (result) => {
          completedAt[name] = performance.now();
          return result;
        },
        (error: Error) => {
          throw new Error(`${error.message}\n${b.describe()}`);
        },
      );
    const [deleted, applied, told] = await Promise.all([
      resultOf(parked.runId, 'run 1'),
      resultOf(effect.runId, 'run 2'),
      resultOf(story.runId, 'run 3'),
    ]);
    const recovered = performance.now();

    expect(deleted).toMatchObject({ finishReason: 'stop', text: 'Record rec-1 deleted.' });
    expect(applied).toMatchObject({ finishReason: 'stop', text: 'Effect applied.' });
    expect(told).toMatchObject({ finishReason: 'stop', text: STORY });
    // The test process follows the runs through their durable logs.
    expect(await within(approved.text, 15_000, 'the approval stream')).toBe(
      'Record rec-1 deleted.',
    );
    expect(await within(story.text, 15_000, "run 3's stream")).toBe(STORY);
    expect(await within(effect.finishReason, 15_000, "run 2's stream")).toBe('stop');

    const all = await effects(effectsFile);
    const pids = (lines: EffectLine[]) => lines.map((l) => l.pid);
    // The slow tool started on both workers, but its effect happened once, on worker B.
    expect(pids(all.filter((l) => l.event === 'started' && l.key === key))).toEqual([a.pid, b.pid]);
    expect(pids(all.filter((l) => l.event === 'effect' && l.key === key))).toEqual([b.pid]);
    expect(await attemptsOf(tollgate, effect.runId, 'executeTool')).toEqual([2]);
    // The gated tool ran once, after approval, on worker B.
    const deletes = all.filter((l) => l.tool === 'delete-record');
    expect(deletes.map((l) => [l.event, l.pid])).toEqual([
      ['started', b.pid],
      ['effect', b.pid],
    ]);
    expect(deletes[0]!.key).toBe(`${parked.runId}:${pending!.toolCallId}`);
    // Run 3's model step started again on worker B, as a second attempt, and streamed to the end.
    expect(pids(all.filter((l) => l.turn === 'story'))).toEqual([a.pid, b.pid]);
    expect(await attemptsOf(tollgate, story.runId, 'modelStep')).toEqual([2]);
    // Nothing else ran twice: one model turn per step apart from run 3's retried one.
    expect(
      all
        .filter((l) => l.event === 'model')
        .map((l) => l.turn)
        .sort(),
    ).toEqual(['after delete-record', 'after slow-effect', 'delete', 'effect', 'story', 'story']);

    expect(await b.stop('SIGTERM')).toBe('code 0');
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    console.log(
      `worker-kill: ${seconds(performance.now() - began)} in all; worker A ready after ` +
        `${seconds(workerAReady - began)}; SIGKILL to all three runs completed ` +
        `${seconds(recovered - killed)} (worker B ready after ${seconds(workerBReady - killed)}, ` +
        `run 1 approved after ${seconds(approvedAt - killed)}; completed after: ` +
        Object.entries(completedAt)
          .map(([run, at]) => `${run} ${seconds(at - killed)}`)
          .join(', ') +
        ')',
    );
  }, 120_000);
});
