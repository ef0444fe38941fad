import type { GrantRelease } from '../common/grant-types.js';
import type { Chunk, FinishReason, ToolCallRef, Usage } from '../common/chunks.js';
import type { AgentStream, SuspendPayload, ToolResultRef } from './agent-stream.js';

export interface StepOutput {
  step: number;
  text: string;
  toolCalls: ToolCallRef[];
  toolResults: ToolResultRef[];
  finishReason: FinishReason;
  usage: Usage;
}

/** What `generate()` and the `…Generate` calls return (SPEC §3). */
export interface AgentOutput {
  runId: string;
  text: string;
  finishReason: FinishReason;
  /** Present when `finishReason` is `'suspended'`. */
  suspendPayload?: SuspendPayload;
  toolCalls: ToolCallRef[];
  toolResults: ToolResultRef[];
  steps: StepOutput[];
  usage: Usage;
  /** The run's error, when `finishReason` is `'error'`. */
  error?: string;
  /** With `error`: the code of a run ended from outside, e.g. `RUN_TERMINATED`. */
  errorCode?: string;
  /** After an approval with a grant: the other calls it released (docs/grant-release.md). */
  grantRelease?: GrantRelease;
}

/** Reads a stream to its end and gathers it into one output. */
export async function collectOutput(stream: AgentStream): Promise<AgentOutput> {
  const chunks = await stream.recorded;
  const suspendPayload = await stream.suspendPayload;
  const error = chunks.findLast((chunk) => chunk.type === 'error');
  return {
    runId: stream.runId,
    text: await stream.text,
    finishReason: await stream.finishReason,
    ...(suspendPayload ? { suspendPayload } : {}),
    toolCalls: await stream.toolCalls,
    toolResults: await stream.toolResults,
    steps: stepsOf(chunks),
    usage: await stream.usage,
    ...(error?.type === 'error' ? { error: error.payload.error } : {}),
    ...(error?.type === 'error' && error.payload.code ? { errorCode: error.payload.code } : {}),
    ...(stream.grantRelease ? { grantRelease: stream.grantRelease } : {}),
  };
}

function stepsOf(chunks: Chunk[]): StepOutput[] {
  const steps: StepOutput[] = [];
  const stepOfCall = new Map<string, StepOutput>();
  let current: StepOutput | undefined;
  for (const chunk of chunks) {
    switch (chunk.type) {
      case 'step-start':
        current = {
          step: chunk.payload.step,
          text: '',
          toolCalls: [],
          toolResults: [],
          finishReason: 'other',
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        };
        steps.push(current);
        break;
      case 'text-delta':
        if (current) current.text += chunk.payload.text;
        break;
      case 'tool-call':
        current?.toolCalls.push(chunk.payload);
        if (current) stepOfCall.set(chunk.payload.toolCallId, current);
        break;
      case 'step-finish':
        if (current)
          Object.assign(current, {
            finishReason: chunk.payload.finishReason,
            usage: chunk.payload.usage,
          });
        break;
      case 'tool-result':
      case 'tool-error':
        stepOfCall.get(chunk.payload.toolCallId)?.toolResults.push({ ...chunk.payload });
        break;
    }
  }
  return steps;
}
