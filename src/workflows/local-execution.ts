import { proxyLocalActivities, type LocalActivityOptions } from '@temporalio/workflow';
import type { TollgateActivities } from '../activities/index.js';
import { FAILURE_TYPE_PREFIX } from '../common/errors.js';
import type { Chunk } from '../common/chunks.js';
import type {
  AgentManifest,
  ExecuteToolInput,
  ExecuteToolOutput,
  ModelStepInput,
  ModelStepManifest,
  ModelStepOutput,
  RetrySpec,
  ToolManifest,
} from '../common/run-types.js';

/**
 * Local execution (docs/local-execution.md): model steps of agents with
 * `execution: { modelSteps: 'local' }` and ungated calls of `local: true` tools run as Temporal
 * local activities, in the worker that runs the workflow task, recorded as markers. Whether a run
 * uses them is read from its manifest, which its history records, so replay takes the same path.
 */

/** Same classification as remote activities: user errors are not retried. */
const NON_RETRYABLE = [
  FAILURE_TYPE_PREFIX + 'AGENT_NOT_FOUND',
  FAILURE_TYPE_PREFIX + 'INVALID_AGENT',
  FAILURE_TYPE_PREFIX + 'INVALID_TOOL',
];

/** Whether the run's model steps are local activities. */
export function modelStepsAreLocal(manifest: AgentManifest): boolean {
  return manifest.execution?.modelSteps === 'local';
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
    [{ ...input, idempotencyKey: `${input.runId}:step-${position.step}:call-${position.index}` }],
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
