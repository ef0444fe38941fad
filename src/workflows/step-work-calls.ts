import type { ActivityOptions } from '@temporalio/workflow';
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
import { control, NON_RETRYABLE, onQueue } from './activity-calls.js';
import { onAgentHost, type AgentRoute } from './agent-routing.js';
import { localModelStep, localOrHosted, modelStepsAreLocal } from './local-execution.js';

/**
 * A step's work: its model step and its tool calls, as activities scheduled by the run's route
 * (`onAgentHost`: the run's own queue first, for eager dispatch), or as local activities where
 * the run's mode says so.
 */

/** Model-step settings of manifests recorded before they carried their own. */
const MODEL_STEP_DEFAULTS: ModelStepManifest = {
  timeoutMs: 10 * 60_000,
  heartbeatTimeoutMs: 60_000,
  retry: { maximumAttempts: 3, initialIntervalMs: 2000 },
};

/** The manifest's model-step settings; defaults for manifests recorded before they existed. */
export function modelStepSettings(manifest: AgentManifest): ModelStepManifest {
  return manifest.modelStep ?? MODEL_STEP_DEFAULTS;
}

export function modelStep(
  manifest: AgentManifest,
  input: ModelStepInput,
  route: AgentRoute,
): Promise<ModelStepOutput> {
  const settings = modelStepSettings(manifest);
  const queue = route.agentQueue;
  if (modelStepsAreLocal(manifest)) {
    const hosted = () => hostedModelStep(settings, input, queue);
    return localOrHosted(() => localModelStep(settings, input), queue, hosted);
  }
  return onAgentHost(route, (queue) => hostedModelStep(settings, input, queue));
}

/** A model step as an ordinary activity, on the agent's queue where the run routes it there. */
export function hostedModelStep(
  settings: ModelStepManifest,
  input: ModelStepInput,
  queue: string | undefined,
): Promise<ModelStepOutput> {
  return control.modelStep.executeWithOptions(
    onQueue(
      {
        startToCloseTimeout: settings.timeoutMs,
        heartbeatTimeout: settings.heartbeatTimeoutMs,
        retry: retryOf(settings.retry),
        summary: `model step ${input.step}`,
      },
      queue,
    ),
    [input],
  );
}

function retryOf(retry: RetrySpec): ActivityOptions['retry'] {
  return {
    maximumAttempts: retry.maximumAttempts,
    initialInterval: retry.initialIntervalMs,
    nonRetryableErrorTypes: NON_RETRYABLE,
  };
}

/** A tool call as an activity, by the run's route (`onAgentHost`). */
export function executeTool(
  tool: ToolManifest,
  input: ExecuteToolInput,
  route: AgentRoute,
): Promise<ExecuteToolOutput> {
  return onAgentHost(route, (queue, priorAttempt) =>
    executeToolOn(tool, priorAttempt === undefined ? input : { ...input, priorAttempt }, queue),
  );
}

function executeToolOn(
  tool: ToolManifest,
  input: ExecuteToolInput,
  queue: string | undefined,
): Promise<ExecuteToolOutput> {
  return control.executeTool.executeWithOptions(
    onQueue(
      {
        startToCloseTimeout: tool.timeoutMs,
        ...(tool.heartbeatTimeoutMs !== undefined
          ? { heartbeatTimeout: tool.heartbeatTimeoutMs }
          : {}),
        retry: retryOf(tool.retry),
        summary: `tool ${tool.toolId ?? tool.name}`,
      },
      queue,
    ),
    [input],
  );
}
