/**
 * The baseline of the load benchmark: the least a durable "wait for a person, then act" costs on
 * Temporal. Waits for the `release` signal, then runs one activity. Bundled on its own.
 */
import {
  condition,
  defineSignal,
  defineUpdate,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { BaselineActivities } from './activities.js';

export const releaseSignal = defineSignal('release');
/** Answers once the workflow runs: the run is parked on the signal when this returns. */
export const parkedUpdate = defineUpdate<boolean>('parked');

const { act } = proxyActivities<BaselineActivities>({ startToCloseTimeout: '1 minute' });

export async function parkedRun(id: string): Promise<string> {
  let released = false;
  setHandler(releaseSignal, () => void (released = true));
  setHandler(parkedUpdate, () => true);
  await condition(() => released);
  return act(id);
}
