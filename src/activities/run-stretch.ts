import { refOf } from '../common/chunks.js';
import { jsonBytes } from '../common/continued-run.js';
import { TollgateError } from '../common/errors.js';
import type { ExecuteToolOutput, ModelToolCall } from '../common/run-types.js';
import {
  nextStepChunkOffset,
  positionKey,
  STRETCH_HARD_MAX_BYTES,
  STRETCH_MAX_BYTES,
  STRETCH_MAX_MS,
  stepStretches,
  type StretchEnd,
  type StretchInput,
  type StretchOutput,
  type StretchStep,
} from '../common/stretches.js';
import { stepTextDeltas } from '../common/step-text.js';
import { errorPart, resultPart, type ToolResultPart } from '../common/tool-result-part.js';
import { Checkpoints } from './checkpoints.js';
import { wholeConversation } from './conversation-cache.js';
import type { CallbackSigner } from '../channels/callback-link.js';
import { runTool } from './execute-tool.js';
import { runModelStep, type ModelStepDeps } from './model-step.js';

/**
 * A stretch (docs/local-execution.md "Stretches"), run as one local activity: model step, then,
 * while every call of the step is stretchable (`stepStretches`), its calls in-process and the next
 * step, until a step answers, ends at a call the workflow must handle, or a bound is reached.
 * The steps are returned together; the workflow logs them as it logs single steps. Model steps and
 * tool calls are the model-step and execute-tool activities' own code.
 */
export async function runStretch(
  deps: ModelStepDeps & { callbacks?: CallbackSigner | undefined },
  input: StretchInput,
): Promise<StretchOutput> {
  const started = Date.now();
  const { conversation: first, lastStep, rules, ...stepInput } = input;
  let messages = await wholeConversation(deps, input.runId, first);
  const steps: StretchStep[] = [];
  let bytes = 0;
  let chunkOffset = input.chunkOffset;
  const end = (ended: StretchEnd): StretchOutput => ({ steps, ended });
  for (let step = input.step; ; step++) {
    const later = steps.length > 0;
    if (later && bytes >= STRETCH_MAX_BYTES) return end('bytes');
    if (later && Date.now() - started >= STRETCH_MAX_MS) return end('time');
    const conversation = { from: 0, messages, ...generationOf(first.generation) };
    let output;
    try {
      output = await runModelStep(deps, { ...stepInput, step, chunkOffset, conversation });
    } catch (error) {
      // The steps so far stand; the next stretch makes this step again, under its retry policy.
      if (later) return end('model-failure');
      throw error;
    }
    const outputBytes = jsonBytes(output);
    if (later && bytes + outputBytes > STRETCH_HARD_MAX_BYTES) return end('bytes');
    const calls = output.toolCalls;
    if (calls.length === 0) return done(output, 'answer');
    if (!stepStretches(rules, calls)) return done(output, 'not-stretchable');
    const toolOutputs = await Promise.all(calls.map((call, index) => execute(call, index, step)));
    const stepBytes = outputBytes + jsonBytes(toolOutputs);
    if (bytes + stepBytes > STRETCH_HARD_MAX_BYTES) {
      // Read-only calls: the workflow runs them again, one local activity each.
      steps.push({ output, toolOutputs: calls.map(() => null) });
      return end('bytes');
    }
    steps.push({ output, toolOutputs });
    bytes += stepBytes;
    if (toolOutputs.some((out) => out === null || !plain(out))) return end('tool-output');
    if (step >= lastStep) return end('last-step');
    const results = calls.map((call, index) => partOf(call, toolOutputs[index]!));
    messages = [...messages, ...output.responseMessages, { role: 'tool', content: results }];
    chunkOffset = nextStepChunkOffset(chunkOffset, stepTextDeltas(output).length, calls.length);
  }

  function done(output: StretchStep['output'], ended: StretchEnd): StretchOutput {
    steps.push({ output });
    return end(ended);
  }

  /** A call as a local call runs, keyed by its position; a throw leaves it to the workflow. */
  async function execute(
    call: ModelToolCall,
    index: number,
    step: number,
  ): Promise<ExecuteToolOutput | null> {
    const toolInput = {
      runId: input.runId,
      agentId: input.agentId,
      call: refOf(call),
      requestContext: input.requestContext,
      idempotencyKey: positionKey(input.runId, { step, index }),
      ...(input.toolNaming ? { toolNaming: input.toolNaming } : {}),
    };
    try {
      return await runTool(deps.agents, toolInput, new Checkpoints(), deps.callbacks);
    } catch (error) {
      // A user error fails the call at once, as the activity's would; anything else may be
      // retried, which the workflow's own local call of it does under the tool's retry policy.
      if (error instanceof TollgateError)
        return { kind: 'error', error: error.message, code: error.code };
      return null;
    }
  }
}

function generationOf(generation: number | undefined): { generation?: number } {
  return generation !== undefined ? { generation } : {};
}

/** A result or an error: what the workflow only logs and tells the model. */
function plain(output: ExecuteToolOutput): boolean {
  return output.kind === 'result' || output.kind === 'error';
}

/** What the model reads of a plain output, as the workflow's `toolResult`/`toolError` build it. */
function partOf(call: ModelToolCall, output: ExecuteToolOutput): ToolResultPart {
  if (output.kind === 'result') return resultPart(call, output.result);
  return errorPart(call, (output as { error: string }).error);
}
