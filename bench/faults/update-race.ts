/**
 * A worker restart that leaves an activity's result and an approval update to arrive in one
 * workflow task, played on a real Temporal server. Used by `repro-update-nde.ts` (many attempts,
 * by hand) and `test/update-order.test.ts` (a few, in CI).
 *
 * Steps: the model's step 1 asks for a gated call and a slow tool at once; while the slow tool
 * runs, worker 1 shuts down (its running activity finishes first, so its result is recorded); the
 * approval is sent as an update (it waits: no worker); worker 2, with an empty cache, picks up the
 * task holding the tool's result and the update. Step 2 asks for another gated call. Worker 2 then
 * stops, the history is replayed, and worker 3 (empty cache again: it replays the run) gets the
 * approval of step 2 and finishes the run. A stream started with the run follows it throughout, so
 * queries reach the workers while they load the run, as a user interface's would.
 *
 * Before updates were ordered after events (`src/workflows/update-order.ts`), the first task was
 * now and then processed in one order live and in the other on replay: the history no longer
 * replayed, and worker 3 failed every task of the run.
 */
import { Worker } from '@temporalio/worker';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { Agent, createTool, Tollgate, type AgentClient } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { workflowBundle } from '../../src/worker.js';
import { within } from '../support/concurrency.js';

export interface UpdateRaceOutcome {
  runId: string;
  /** How the step-1 approval went: `applied`, or the error. */
  firstApproval: string;
  /** `replays`, or the nondeterminism the replay of the history after step 1 met. */
  replay: string;
  /** `completed: …`, `stuck: …` or `step 2 never parked`. */
  ending: string;
  /** Executions of each tool call, by `<tool> <id>`. */
  executions: Record<string, number>;
  /** The run's full history as JSON when it did not replay, for inspection. */
  history?: string;
}

export interface UpdateRaceOptions {
  address: string;
  namespace: string;
  taskQueue: string;
}

function raceAgent(executions: Record<string, number>): Agent {
  const count = (key: string) => (executions[key] = (executions[key] ?? 0) + 1);
  return new Agent({
    id: 'update-race-agent',
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
        execute: ({ id }) => {
          count(`gated ${id}`);
          return `gated ${id} ran`;
        },
      }),
      slow: createTool({
        id: 'slow',
        inputSchema: z.object({ id: z.string() }),
        execute: async ({ id }) => {
          await sleep(3000);
          count(`slow ${id}`);
          return 'slow ran';
        },
      }),
    },
  });
}

async function waitForGated(runs: AgentClient, runId: string, id: string): Promise<boolean> {
  for (let i = 0; i < 300; i++) {
    const pending = await runs.pendingToolCalls(runId).catch(() => []);
    if (pending.some((call) => JSON.stringify(call.args).includes(id))) return true;
    await sleep(100);
  }
  return false;
}

export async function playUpdateRace(temporal: UpdateRaceOptions): Promise<UpdateRaceOutcome> {
  const executions: Record<string, number> = {};
  const agent = raceAgent(executions);
  const worker1 = new Tollgate({ agents: { agent }, temporal });
  await worker1.startWorker();
  const client = new Tollgate({ temporal });
  try {
    const runs = client.getAgent('update-race-agent');
    const { runId } = await runs.stream('go');
    const outcome: UpdateRaceOutcome = {
      runId,
      firstApproval: 'not sent',
      replay: 'not checked',
      ending: 'step 1 never parked',
      executions,
    };
    if (!(await waitForGated(runs, runId, 'first'))) {
      await worker1.shutdown();
      return outcome;
    }
    await worker1.shutdown(); // the slow tool finishes first: its result is recorded
    const approval = runs.approveToolCall({ runId }).then(
      () => 'applied',
      (error: unknown) => `failed: ${String(error)}; cause: ${String((error as Error).cause)}`,
    );
    await sleep(1000);
    const worker2 = new Tollgate({ agents: { agent }, temporal });
    await worker2.startWorker();
    outcome.firstApproval = await approval;
    const parked = await waitForGated(runs, runId, 'second');
    await worker2.shutdown();

    const handle = (await client.client()).workflow.getHandle(runId);
    const history = await handle.fetchHistory();
    try {
      await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history);
      outcome.replay = 'replays';
    } catch (error) {
      outcome.replay = `does not replay: ${/Nondeterminism error: [^"]*/.exec(String(error))?.[0] ?? String(error).slice(0, 300)}`;
      outcome.history = JSON.stringify(history);
    }
    outcome.ending = 'step 2 never parked';
    if (parked) {
      const worker3 = new Tollgate({ agents: { agent }, temporal });
      await worker3.startWorker();
      try {
        await within(runs.approveToolCall({ runId }), 30_000, 'the approval of step 2');
        const result = await within(handle.result(), 30_000, 'the end of the run');
        outcome.ending = `completed: ${JSON.stringify(result)}`;
      } catch (error) {
        const events = (await handle.fetchHistory()).events ?? [];
        const failed = events.filter((e) => e.workflowTaskFailedEventAttributes).length;
        outcome.ending = `stuck: ${String(error).slice(0, 200)}; ${failed} failed workflow task(s)`;
      } finally {
        await worker3.shutdown();
      }
    }
    return outcome;
  } finally {
    await client.shutdown();
  }
}
