/**
 * The workflow of `tollgate doctor --probe`, bundled on its own (it is not part of the agent
 * workflows' bundle): `rounds` activities one after another, so the history shows how long the
 * server takes to hand each activity to the worker and to wake the workflow when one completes.
 */
import { proxyActivities } from '@temporalio/workflow';

/** The probe's one activity: returns at once. */
export interface ProbeActivities {
  probeStep(round: number): Promise<number>;
}

const { probeStep } = proxyActivities<ProbeActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

export async function tollgateServerProbe(rounds: number): Promise<number> {
  let done = 0;
  for (let round = 1; round <= rounds; round++) done += (await probeStep(round)) === round ? 1 : 0;
  return done;
}
