import type { AgentManifest, RunInput, ToolNaming } from '../common/run-types.js';
import { describeAgent } from './activity-calls.js';
import {
  decidePatches,
  localDescribeAgent,
  localOrHosted,
  modelStepsAreLocal,
} from './local-execution.js';
import { isPatched } from './patch-markers.js';
import {
  CHANNELS_PATCH,
  COMPACTION_PATCH,
  CONTINUE_AS_NEW_PATCH,
  DECLINE_ENDS_STRETCH_PATCH,
  DEFINITION_REGATE_PATCH,
  HANDLERS_FINISHED_PATCH,
  LOCAL_DESCRIBE_PATCH,
  STRETCHES_PATCH,
} from './patch-ids.js';
import type { RunState } from './run-state.js';

/** What a run knows of its agent once described; `patches`, when it decided them before. */
export interface DescribedRun {
  manifest: AgentManifest;
  patches?: Map<string, boolean>;
}

/**
 * The patches a run doing local work decides before its first local work: the ones it would
 * otherwise ask after a local activity (`patchesBeforeLocalWork`). Without a manifest, all of
 * them: a run that describes its agent locally decides them before it knows the agent.
 */
export function patchesOfLocalWork(manifest?: AgentManifest): string[] {
  return [
    HANDLERS_FINISHED_PATCH,
    CONTINUE_AS_NEW_PATCH,
    CHANNELS_PATCH,
    DECLINE_ENDS_STRETCH_PATCH,
    DEFINITION_REGATE_PATCH,
    ...(!manifest || manifest.conversation ? [COMPACTION_PATCH] : []),
    ...(!manifest || modelStepsAreLocal(manifest) ? [STRETCHES_PATCH] : []),
  ];
}

/**
 * Describes the run's agent. A run started with `describeLocally` (its starter hosts the agent,
 * which does local work) or `describeHere` (its starter records one patch marker) under
 * `LOCAL_DESCRIBE_PATCH` does it as a local activity in the workflow task under way, sparing the
 * describe's round trip through the server and the workflow task it would wake; it decides its
 * patches first, since the describe is now its first local work. A `describeLocally` run
 * publishes every status (a repeat left out would ask a patch after it); a `describeHere` run
 * decides now whether it leaves repeats out, which its one marker answers. A worker that does not
 * host the agent refuses the local describe, and the run describes it on the agent's queue, where
 * all its later agent work goes too. Every other run describes as before, and decides its
 * patches where it always did, after the describe (`patchesBeforeLocalWork`).
 */
export async function describeRun(
  input: RunInput,
  toolNaming: ToolNaming,
  state: RunState,
): Promise<DescribedRun> {
  if ((input.describeLocally || input.describeHere) && isPatched(LOCAL_DESCRIBE_PATCH)) {
    const patches = decidePatches(patchesOfLocalWork());
    if (input.describeLocally) state.status.keepRepeats();
    else state.status.decideRepeats();
    const manifest = await localOrHosted(
      () => localDescribeAgent(input.agentId, toolNaming),
      state.agentQueue,
      () => {
        state.hereFirst = false;
        return describeAgent(input.agentId, toolNaming, state);
      },
    );
    return { manifest, patches };
  }
  return { manifest: await describeAgent(input.agentId, toolNaming, state) };
}
