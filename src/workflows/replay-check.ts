import type { ReplayCheckAnswer, ReplayCheckInput } from '../common/deployment-types.js';
import { checkReplay } from './activity-calls.js';

/**
 * Before a run moves to a build (docs/deploying.md), the client starts this pinned to that build:
 * its one activity, on a worker of the build, replays the run's history with the build's own
 * workflow code. A build older than this workflow cannot run it, and is not moved to.
 */
export async function tollgateReplayCheck(input: ReplayCheckInput): Promise<ReplayCheckAnswer> {
  return await checkReplay(input);
}
