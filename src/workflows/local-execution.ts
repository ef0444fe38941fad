import {
  ApplicationFailure,
  proxyLocalActivities,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { TollgateActivities } from '../activities/index.js';
import { TollgateError } from '../common/errors.js';
import type { Chunk } from '../common/chunks.js';
import {
  positionKey,
  STRETCH_MAX_MS,
  type StretchInput,
  type StretchOutput,
} from '../common/stretches.js';
import type {
  AgentManifest,
  ExecuteToolInput,
  ExecuteToolOutput,
  ModelStepInput,
  ModelStepManifest,
  ModelStepOutput,
  RetrySpec,
  ToolManifest,
  ToolNaming,
} from '../common/run-types.js';
import { CONTROL, describeArgs, NON_RETRYABLE } from './activity-calls.js';
import { agentNotHostedHere } from './agent-routing.js';
import { isPatched } from './patch-markers.js';
import { LOCAL_REFUSAL_PATCH } from './patch-ids.js';

/**
 * Local execution (docs/local-execution.md): model steps of agents with
 * `execution: { modelSteps: 'local' }` and ungated calls of `local: true` tools run as Temporal
 * local activities, in the worker that runs the workflow task, recorded as markers. Whether a run
 * uses them is read from its manifest, which its history records, so replay takes the same path.
 */

/** Whether the run's model steps are local activities. */
export function modelStepsAreLocal(manifest: AgentManifest): boolean {
  return manifest.execution?.modelSteps === 'local';
}

/** Whether the run may run local activities: local model steps or a `local` tool. */
export function doesLocalWork(manifest: AgentManifest): boolean {
  return modelStepsAreLocal(manifest) || Object.values(manifest.tools).some((tool) => tool.local);
}

/** Whether a call of `tool` runs locally: only a `local` tool's ungated calls do. */
export function runsLocally(tool: ToolManifest, gated: boolean): boolean {
  return tool.local === true && !gated;
}

function localOptions(timeoutMs: number, retry: RetrySpec, summary: string): LocalActivityOptions {
  return {
    startToCloseTimeout: timeoutMs,
    retry: {
      maximumAttempts: retry.maximumAttempts,
      initialInterval: retry.initialIntervalMs,
      nonRetryableErrorTypes: NON_RETRYABLE,
    },
    summary,
  };
}

const local = proxyLocalActivities<TollgateActivities>({ startToCloseTimeout: '1 minute' });

/** The agent's describe as a local activity, with the remote one's timeout and retries. */
export function localDescribeAgent(
  agentId: string,
  toolNaming: ToolNaming,
): Promise<AgentManifest> {
  const { startToCloseTimeout, retry } = CONTROL;
  return local.describeAgent.executeWithOptions(
    { startToCloseTimeout, retry, summary: `describe agent ${agentId} (local)` },
    describeArgs(agentId, toolNaming),
  );
}

/** A model step as a local activity: the same activity, without a heartbeat timeout. */
export function localModelStep(
  settings: ModelStepManifest,
  input: ModelStepInput,
): Promise<ModelStepOutput> {
  return local.modelStep.executeWithOptions(
    localOptions(settings.timeoutMs, settings.retry, `model step ${input.step} (local)`),
    [input],
  );
}

/**
 * An ungated call of a local tool. Its idempotency key names the call's position (step and index
 * within the step), which a rerun after a crash reaches again even if the model, asked again,
 * gives the call another id.
 */
export function localExecuteTool(
  tool: ToolManifest,
  input: ExecuteToolInput,
  position: { step: number; index: number },
): Promise<ExecuteToolOutput> {
  return local.executeTool.executeWithOptions(
    localOptions(tool.timeoutMs, tool.retry, `tool ${tool.toolId ?? tool.name} (local)`),
    [{ ...input, idempotencyKey: positionKey(input.runId, position) }],
  );
}

export { positionKey };

/**
 * A stretch of model steps and their ungated local calls as one local activity (`runStretch`).
 * Its timeout covers the steps started within the time bound, plus one more model step and its
 * calls, started just before it passed.
 */
export function localStretch(
  settings: ModelStepManifest,
  input: StretchInput,
  toolTimeoutMs: number,
): Promise<StretchOutput> {
  const timeoutMs = STRETCH_MAX_MS + settings.timeoutMs + toolTimeoutMs;
  return local.runStretch.executeWithOptions(
    localOptions(timeoutMs, settings.retry, `steps from ${input.step} (local stretch)`),
    [input],
  );
}

/**
 * Local work of a run that routes its agent's activities (`RunState.agentQueue`) done where the
 * agent is hosted: a workflow task may run on any worker of the queue, and when that worker lacks
 * the agent (a fleet of releases or teams), the work is done again as an ordinary activity on the
 * agent's queue, which only its hosts poll. Runs that do not route fail as before.
 */
export async function localOrHosted<T>(
  local: () => Promise<T>,
  queue: string | undefined,
  hosted: () => Promise<T>,
): Promise<T> {
  try {
    return await local();
  } catch (error) {
    if (queue === undefined || !(agentNotHostedHere(error) || refusedLocally(error))) throw error;
    return hosted();
  }
}

/**
 * A local activity's refusal by a worker without the agent: it reaches the workflow as the
 * activity's own `ApplicationFailure`, not wrapped in an `ActivityFailure` as a remote one is.
 * Runs before `LOCAL_REFUSAL_PATCH` failed on it; asked only then, so they replay as they ran.
 */
function refusedLocally(error: unknown): boolean {
  return (
    error instanceof ApplicationFailure &&
    TollgateError.codeOfFailureType(error.type) === 'AGENT_NOT_FOUND' &&
    isPatched(LOCAL_REFUSAL_PATCH)
  );
}

/** The step whose tool calls run now: the latest `step-start` on the run's chunk log. */
export function currentStep(chunks: readonly Chunk[]): number {
  for (let i = chunks.length - 1; i >= 0; i--) {
    const chunk = chunks[i]!;
    if (chunk.type === 'step-start') return (chunk.payload as { step: number }).step;
  }
  return 0;
}

/**
 * Patches a local-mode run would otherwise check after a local activity, decided up front.
 *
 * A local activity's result can reach the workflow in a later workflow task than the one that ran
 * it (its marker is recorded with the first); on replay the result comes at once, so code after
 * it runs one task earlier than it first did. A `patched()` there would then find its marker one
 * task later and fail replay. Deciding such patches in the workflow task before any local work,
 * and only for local-mode runs (no older history has them), keeps their markers where replay
 * expects them. Remote runs get an empty map and check their patches where they always did.
 */
export function patchesBeforeLocalWork(
  manifest: AgentManifest,
  ids: string[],
): Map<string, boolean> {
  return doesLocalWork(manifest) ? decidePatches(ids) : new Map();
}

/** Each of `ids`, asked now: a run that decides patches before its first local work. */
export function decidePatches(ids: string[]): Map<string, boolean> {
  return new Map(ids.map((id) => [id, isPatched(id)]));
}

/** A patch decided up front (`patchesBeforeLocalWork`), or else asked here, where it applies. */
export function askPatch(decided: Map<string, boolean>, id: string): boolean {
  return decided.get(id) ?? isPatched(id);
}
