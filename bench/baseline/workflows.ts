/**
 * Bare Temporal workflows, bundled on their own: the least a durable "wait for a person, then
 * act" costs (`parkedRun`, the load baseline), and the floor Tollgate's per-step and approval
 * figures are compared with (`floorLoop`, `floorGate`), and the least any workflow task costs
 * on the server (`emptyTasks`).
 */
import {
  condition,
  defineSignal,
  defineUpdate,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { BaselineActivities } from './activities.js';

export const releaseSignal = defineSignal('release');
/** Answers once the workflow runs: the run is parked on the signal when this returns. */
export const parkedUpdate = defineUpdate<boolean>('parked');
/** The floor's approval as an update: accepted and applied, then the activity is scheduled. */
export const approveUpdate = defineUpdate<boolean>('approve');
/** Does nothing: one update is one workflow task that issues no command (the physical limit). */
export const pokeUpdate = defineUpdate<number>('poke');

const remote = proxyActivities<BaselineActivities>({ startToCloseTimeout: '1 minute' });
/** Activities with Tollgate's heartbeat timeouts (model step 60 s, tool call 30 s). */
const model = proxyActivities<BaselineActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
});
const tool = proxyActivities<BaselineActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
});
const local = proxyLocalActivities<BaselineActivities>({ startToCloseTimeout: '1 minute' });

export async function parkedRun(id: string): Promise<string> {
  let released = false;
  setHandler(releaseSignal, () => void (released = true));
  setHandler(parkedUpdate, () => true);
  await condition(() => released);
  return remote.act(id);
}

/**
 * `parkedRun` with what a parked Tollgate run does around its wait for the person, and nothing
 * else: the model step that asks for the tool before it parks (`parked` answers once it waits);
 * once released, the tool with its execution mark and the model step that answers its result.
 * The load benchmark's same-work baseline, as `floorGateAnswered` is the approvals'.
 */
export async function parkedRunAnswered(id: string): Promise<string> {
  let released = false;
  let waiting = false;
  setHandler(releaseSignal, () => void (released = true));
  setHandler(parkedUpdate, async () => {
    await condition(() => waiting);
    return true;
  });
  await model.step(`ask-${id}`);
  waiting = true;
  await condition(() => released);
  await tool.markedStep(`tool-${id}`);
  await model.step(`answer-${id}`);
  return `done ${id}`;
}

/**
 * An agent loop without the agent: `steps` steps of "model" then "tool" activity, the last step
 * "model" only (as a run whose last model step answers with text).
 */
export async function floorLoop(steps: number, locally: boolean): Promise<number> {
  const activities = locally ? local : remote;
  for (let i = 1; i <= steps; i++) {
    await activities.step(`model-${i}`);
    if (i < steps) await activities.step(`tool-${i}`);
  }
  return steps;
}

/**
 * `floorLoop` with the one durability step Tollgate's tool call adds to a bare activity: each
 * tool call heartbeats once, marking its attempt as executing, so that an attempt lost mid-way is
 * never run again unseen. The heartbeat timeouts are Tollgate's.
 */
export async function floorLoopMarked(steps: number): Promise<number> {
  for (let i = 1; i <= steps; i++) {
    await model.step(`model-${i}`);
    if (i < steps) await tool.markedStep(`tool-${i}`);
  }
  return steps;
}

/** Parks until `release` (signal) or `approve` (update), then runs `mark` and ends. */
export async function floorGate(id: string): Promise<string> {
  await parkedUntilReleased();
  return remote.mark(id);
}

/**
 * `floorGate` doing what an approved Tollgate call does after its approval: the tool (with its
 * execution mark) and then the model step that answers the tool's result.
 */
export async function floorGateAnswered(id: string): Promise<string> {
  await parkedUntilReleased();
  const done = await tool.markedMark(id);
  await model.step(`answer-${id}`);
  return done;
}

async function parkedUntilReleased(): Promise<void> {
  let released = false;
  setHandler(releaseSignal, () => void (released = true));
  setHandler(parkedUpdate, () => true);
  setHandler(approveUpdate, () => (released = true));
  await condition(() => released);
}

/**
 * Answers `poke` updates, each in a workflow task that issues no command, until `release`: one
 * update's round trip is what the server, the worker and a client can do at all on this machine.
 */
export async function emptyTasks(): Promise<number> {
  let pokes = 0;
  let released = false;
  setHandler(releaseSignal, () => void (released = true));
  setHandler(pokeUpdate, () => ++pokes);
  await condition(() => released);
  return pokes;
}
