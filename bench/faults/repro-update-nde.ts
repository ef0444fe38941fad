/**
 * Reproduces the nondeterminism the fault benchmark found now and then: a workflow task that
 * carries both an activity completion and an approval update is processed live in one order and
 * replayed in another, so the run's history no longer replays — and a run that is still going
 * when that happens gets stuck on its next replay.
 *
 * Steps: the model's step 1 asks for a gated call and a slow tool at once; while the slow tool
 * runs, worker 1 shuts down (its running activity finishes first); the approval is sent as an
 * update (it waits: no worker); worker 2 picks up the task holding the tool's completion and the
 * update. Step 2 asks for another gated call. Worker 2 then stops and worker 3 (empty cache, so it
 * replays the run) gets the approval of step 2. Timing decides how the first task is processed,
 * so the script tries up to `ATTEMPTS` runs and reports each.
 *
 *   npm run build && node dist/bench/faults/repro-update-nde.js   # exit 1: reproduced
 */
import '../quiet-runtime.js';
import { Worker } from '@temporalio/worker';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import {
  Agent,
  createTool,
  findTemporalCli,
  startDevServer,
  Tollgate,
  type AgentClient,
} from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { workflowBundle } from '../../src/worker.js';
import { within } from '../support/concurrency.js';

const ATTEMPTS = 4;

const agent = new Agent({
  id: 'repro-agent',
  model: scriptedModel((prompt) => {
    const step = prompt.filter((m) => m.role === 'tool').length + 1;
    if (step === 1)
      return {
        toolCalls: [
          { toolName: 'gated', args: { id: 'first' } },
          { toolName: 'slow', args: { id: 'first' } },
        ],
      };
    if (step === 2) return { toolCalls: [{ toolName: 'gated', args: { id: 'second' } }] };
    return { text: 'done' };
  }),
  tools: {
    gated: createTool({
      id: 'gated',
      inputSchema: z.object({ id: z.string() }),
      requireApproval: true,
      execute: ({ id }) => `gated ${id} ran`,
    }),
    slow: createTool({
      id: 'slow',
      inputSchema: z.object({ id: z.string() }),
      execute: async () => {
        await sleep(3000);
        return 'slow ran';
      },
    }),
  },
});

async function waitForGated(runs: AgentClient, runId: string, id: string): Promise<boolean> {
  for (let i = 0; i < 300; i++) {
    const pending = await runs.pendingToolCalls(runId).catch(() => []);
    if (pending.some((call) => JSON.stringify(call.args).includes(id))) return true;
    await sleep(100);
  }
  return false;
}

async function attempt(temporal: { address: string; namespace: string; taskQueue: string }) {
  const worker1 = new Tollgate({ agents: { agent }, temporal });
  await worker1.startWorker();
  const client = new Tollgate({ temporal });
  try {
    const runs = client.getAgent('repro-agent');
    const { runId } = await runs.stream('go');
    if (!(await waitForGated(runs, runId, 'first'))) return `${runId}: step 1 never parked`;
    await worker1.shutdown(); // the slow tool finishes first: its completion is recorded
    const approval = runs.approveToolCall({ runId }).then(
      () => 'applied',
      (error: unknown) => `refused or failed (${String(error).slice(0, 120)})`,
    );
    await sleep(1000);
    const worker2 = new Tollgate({ agents: { agent }, temporal });
    await worker2.startWorker();
    const first = await approval;
    if (first !== 'applied') await runs.approveToolCall({ runId });
    const parked = await waitForGated(runs, runId, 'second');
    await worker2.shutdown();

    const handle = (await client.client()).workflow.getHandle(runId);
    let replays = 'replays';
    try {
      await Worker.runReplayHistory(
        { workflowBundle: await workflowBundle() },
        await handle.fetchHistory(),
      );
    } catch (error) {
      replays = `DOES NOT REPLAY (${/Nondeterminism error: [^"]*/.exec(String(error))?.[0] ?? String(error).slice(0, 200)})`;
    }
    let ending = 'step 2 never parked';
    if (parked) {
      const worker3 = new Tollgate({ agents: { agent }, temporal });
      await worker3.startWorker();
      ending = await within(runs.approveToolCall({ runId }), 30_000, 'approval of step 2')
        .then(() => within(handle.result(), 30_000, 'the result'))
        .then(
          (result) => `completed: ${JSON.stringify(result).slice(0, 60)}`,
          (error: unknown) => `STUCK: ${String(error).slice(0, 120)}`,
        );
      if (ending.startsWith('STUCK')) {
        const events = (await handle.fetchHistory()).events ?? [];
        const failed = events.filter((e) => e.workflowTaskFailedEventAttributes).length;
        ending += `; ${failed} workflow task failure(s) in its history`;
      }
      await worker3.shutdown();
    }
    return `${runId}: approval of step 1 ${first}; history after step 1 ${replays}; after a fresh worker: ${ending}`;
  } finally {
    await client.shutdown();
  }
}

const dir = await mkdtemp(join(tmpdir(), 'tollgate-repro-'));
const server = await startDevServer({ cliPath: await findTemporalCli(), dbFile: join(dir, 'db') });
let reproduced = false;
try {
  for (let i = 1; i <= ATTEMPTS; i++) {
    const temporal = {
      address: server.address,
      namespace: server.namespace,
      taskQueue: `repro-${i}`,
    };
    const line = await attempt(temporal);
    console.log(`attempt ${i}: ${line}`);
    if (line.includes('DOES NOT REPLAY') || line.includes('STUCK')) reproduced = true;
  }
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
process.exit(reproduced ? 1 : 0);
