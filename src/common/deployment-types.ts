/**
 * What moving a parked run to another build carries (docs/deploying.md "Moving a parked run to
 * another build"): JSON-safe, shared by the client that moves, the check that runs on the target
 * build and the run that records the move.
 */
import type { DecidedBy } from './decision-types.js';

/** One build of a Worker Deployment: the deployment's name and the release's build id. */
export interface BuildRef {
  deployment: string;
  buildId: string;
}

/** What a move answers: the run, the build it was pinned to and the build it is pinned to now. */
export interface MovedRun {
  runId: string;
  from: BuildRef;
  to: BuildRef;
}

/** Argument of `RUN_MOVED_SIGNAL`: the run records it as its `moved` audit entry. */
export interface RunMovedNote {
  from: BuildRef;
  to: BuildRef;
  movedBy?: DecidedBy;
  reason?: string;
}

/** What the replay check replays: a run's history as it stands (its workflow and Temporal run id). */
export interface ReplayCheckInput {
  runId: string;
  execution: string;
}

/** Whether the build that ran the check replays the run's history without a determinism error. */
export type ReplayCheckAnswer = { ok: true } | { ok: false; message: string };
