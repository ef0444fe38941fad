/**
 * A run handles the updates of a workflow task after everything else the task brought.
 *
 * Why: a worker that does not have the run in its cache, given a task that holds new events (an
 * activity's result, a fired timer, a child run's end) and an update, gets from the SDK core (1.24)
 * the events first and the update in a later activation: the update is accepted after the commands
 * the events caused. Replaying that task, or running it on a worker that has the run cached, gives
 * one activation in which the update is accepted first. The two record different command orders,
 * and the run's history stops replaying; a run still going then fails every workflow task. Found by
 * `bench/faults.ts`; `bench/faults/repro-update-nde.ts` reproduces it.
 *
 * So every run now takes the first order, in every case: an activation's update jobs are held back
 * until its other jobs, the microtasks they started and the conditions they unblocked have all
 * run, which is the state the later activation would have found, and only then handled. Runs
 * record the patch `tollgate-updates-after-events` when they start; a run without it (started
 * before this) keeps the SDK's order, so its history still replays.
 *
 * How "everything has run" is known: a sentinel condition, created when the run starts and never
 * unblocked, is the oldest blocked condition, so the SDK evaluates it first on every pass over
 * the blocked conditions, and always after the activation's microtasks have drained. If, at the
 * start of such a pass, no other condition can unblock, nothing else can move in this activation:
 * the sentinel hands the held updates to the SDK there, as if they had just arrived. This relies
 * on the workflow SDK's activation loop as of 1.24 (pinned in package.json).
 */
import {
  workflowInfo,
  type ActivateInput,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import { assertInWorkflowContext } from '@temporalio/workflow/lib/global-attributes.js';
import { isPatched } from './patch-markers.js';
import { UPDATES_AFTER_EVENTS_PATCH } from './patch-ids.js';

type Job = NonNullable<ActivateInput['activation']['jobs']>[number];
type UpdateJob = NonNullable<Job['doUpdate']>;

const CONTEXT = 'Tollgate update ordering';

type Activator = ReturnType<typeof assertInWorkflowContext>;

/**
 * What `condition(fn)` in a non-cancellable scope leaves among the blocked conditions, under the
 * same sequence number, without the promises nobody here awaits: the SDK's promise hook captures a
 * stack for each promise a run makes (docs/performance.md, fourteenth pass). The SDK evaluates it
 * in its next pass over the conditions, or later in the pass under way, and drops it once true.
 */
function block(activator: Activator, fn: () => boolean): void {
  activator.blockedConditions.set(activator.nextSeqs.condition++, { fn, resolve: () => undefined });
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  let ordered = false;
  /** True while the SDK handles jobs; conditions evaluated then must not release updates. */
  let handlingJobs = false;
  /** True from a pass in which another condition could unblock until the next activation pass. */
  let othersMoving = false;
  const held: UpdateJob[] = [];

  const sentinel = (): boolean => {
    if (handlingJobs || othersMoving || held.length === 0) return false;
    const activator = assertInWorkflowContext(CONTEXT);
    for (const blocked of activator.blockedConditions.values()) {
      if (blocked.fn === sentinel || !blocked.fn()) continue;
      othersMoving = true;
      // Cleared when the microtasks run, before the SDK's next pass over the conditions.
      void Promise.resolve().then(() => (othersMoving = false));
      return false;
    }
    release(activator);
    return false;
  };

  const release = (activator: Activator) => {
    const updates = held.splice(0);
    handlingJobs = true;
    try {
      for (const update of updates) activator.doUpdate(update);
    } finally {
      handlingJobs = false;
    }
    // The sentinel never unblocks; this condition does, later in this same pass, so the SDK runs
    // the update handlers' microtasks and evaluates the conditions again, as after any job.
    block(activator, () => true);
  };

  return {
    inbound: [
      {
        execute: (input, next) => {
          // Agent runs only: the thread workflow takes no updates.
          ordered =
            workflowInfo().workflowType === 'agentRun' && isPatched(UPDATES_AFTER_EVENTS_PATCH);
          if (ordered) block(assertInWorkflowContext(CONTEXT), sentinel);
          return next(input);
        },
      },
    ],
    internals: [
      {
        activate: (input, next) => {
          const jobs = input.activation.jobs ?? [];
          if (!ordered || !jobs.some((job) => job.doUpdate)) return next(input);
          for (const job of jobs) if (job.doUpdate) held.push(job.doUpdate);
          handlingJobs = true;
          try {
            next({
              ...input,
              activation: { ...input.activation, jobs: jobs.filter((job) => !job.doUpdate) },
            });
          } finally {
            handlingJobs = false;
          }
        },
        concludeActivation: (input, next) => {
          if (held.length > 0) {
            // Never drop an update silently: failing the task makes the SDK try it again.
            throw new Error(
              `${CONTEXT}: ${held.length} update(s) were still held when the activation ended.`,
            );
          }
          return next(input);
        },
      },
    ],
  };
};
