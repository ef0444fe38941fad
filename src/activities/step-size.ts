import { TollgateError } from '../common/errors.js';
import type { ModelStepInput, ModelStepOutput } from '../common/run-types.js';
import type { Agent } from '../definitions/agent.js';

/**
 * Default limit of a model step's result, bytes of JSON: a margin under Temporal's default blob
 * size limit (`limit.blobSize.error`, 2 MiB), above which the server rejects the completion.
 */
export const DEFAULT_MAX_STEP_OUTPUT_BYTES = 1_900_000;

/**
 * Fails a step whose result Temporal would reject, before completing it: a rejected completion is
 * only noticed at the heartbeat timeout and then retried, calling the model again for nothing.
 *
 * @throws TollgateError `PAYLOAD_TOO_LARGE` naming the size and the limit (not retried).
 */
export function checkOutputSize(
  agent: Agent,
  input: ModelStepInput,
  output: ModelStepOutput,
): void {
  const limit = agent.modelStep.maxOutputBytes ?? DEFAULT_MAX_STEP_OUTPUT_BYTES;
  const bytes = Buffer.byteLength(JSON.stringify(output), 'utf8');
  if (bytes <= limit) return;
  throw new TollgateError(
    'PAYLOAD_TOO_LARGE',
    `Model step ${input.step} of run ${input.runId} produced ${bytes} bytes of output, over the limit of ${limit} bytes (modelStep.maxOutputBytes of agent "${agent.id}"); ask the model for shorter replies, or raise the limit only as far as the Temporal server's limit.blobSize.error allows.`,
  );
}
