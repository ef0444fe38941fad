import { Context } from '@temporalio/activity';
import { z } from 'zod';
import { streamText, tool as aiTool, zodSchema, type ModelMessage, type ToolSet } from 'ai';
import { makeChunk, type FinishReason, type Usage } from '../common/chunks.js';
import { toolCallFingerprint } from '../common/fingerprint.js';
import { toJsonValue, type JsonValue } from '../common/json.js';
import type {
  ModelStepInput,
  ModelStepOutput,
  ModelToolCall,
  ToolNaming,
} from '../common/run-types.js';
import { textDeltasField } from '../common/step-text.js';
import type { Agent } from '../definitions/agent.js';
import type { LiveDeltaTransport } from '../live/live-transport.js';
import type { AgentRegistry } from './agent-registry.js';
import { wholeConversation, type ConversationSource } from './conversation-cache.js';
import { resolveModel } from './resolve-model.js';
import { checkOutputSize } from './step-size.js';

export interface ModelStepDeps extends ConversationSource {
  agents: AgentRegistry;
  bus: LiveDeltaTransport;
}

/** Deltas that arrive within this window travel as one chunk. */
const DELTA_WINDOW_MS = 25;

/**
 * One model call through the AI SDK, tools offered without `execute`: the workflow decides what
 * runs. Text deltas go live to the run's streams (through `deps.bus`, in this process or a
 * broker) and come back batched in the result.
 */
export async function runModelStep(
  deps: ModelStepDeps,
  input: ModelStepInput,
): Promise<ModelStepOutput> {
  const agent = deps.agents.require(input.agentId);
  const messages = await wholeConversation(deps, input.runId, input.conversation);
  const context = Context.current();
  const attempt = { step: input.chunkOffset, attempt: context.info.attempt };
  // What the call ended with, taken from its one reading below: each of the result's own getters
  // (`response`, `finishReason`, `totalUsage`) reads the stream again through a copy of its own,
  // which made a step cost twice the AI SDK's work.
  let ended: { messages: unknown[] } | undefined;
  let finish: { finishReason: string; totalUsage: Parameters<typeof usageOf>[0] } | undefined;
  const result = streamText({
    model: await resolveModel(agent.model),
    ...(agent.instructions ? { system: agent.instructions } : {}),
    messages: messages as ModelMessage[],
    tools: toolsForModel(agent, input.toolNaming),
    // The request narrowed the run's tools: the model is offered these alone (the workflow still
    // refuses a call of any other tool before its gates).
    ...(input.activeTools ? { activeTools: input.activeTools } : {}),
    abortSignal: context.cancellationSignal,
    // Retries belong to the activity's policy, where Temporal records them.
    maxRetries: 0,
    // Errors are rethrown from the stream below; the SDK's default handler would also print them.
    onError: () => undefined,
    onEnd: (event) => void (ended = event.response),
  });

  const textDeltas: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending === '') return;
    const offset = input.chunkOffset + textDeltas.length;
    textDeltas.push(pending);
    void deps.bus.publish(input.runId, {
      offset,
      chunk: makeChunk(input.runId, 'text-delta', { text: pending }),
      ...attempt,
    });
    pending = '';
    // A local activity cannot heartbeat; its attempt is bounded by its timeout alone.
    if (!context.info.isLocal) context.heartbeat();
  };

  try {
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        pending += part.text;
        timer ??= setTimeout(flush, DELTA_WINDOW_MS);
      } else if (part.type === 'tool-call') {
        flush();
        toolCalls.push(toModelToolCall(part));
      } else if (part.type === 'error') {
        throw part.error instanceof Error ? part.error : new Error(String(part.error));
      } else if (part.type === 'finish') {
        flush();
        finish = part;
      } else {
        flush();
      }
    }
  } catch (error) {
    flush();
    await withdrawLiveText(deps.bus, input, attempt.attempt, textDeltas);
    throw error;
  } finally {
    flush();
  }

  // The getters stay the fallback: a call that ended without its end (aborted) rejects them.
  const responseMessages = toJsonValue((ended ?? (await result.response)).messages) as JsonValue[];
  const output: ModelStepOutput = {
    ...textDeltasField(textDeltas, responseMessages),
    toolCalls,
    responseMessages,
    finishReason: (finish?.finishReason ?? (await result.finishReason)) as FinishReason,
    usage: usageOf(finish?.totalUsage ?? (await result.totalUsage)),
  };
  checkOutputSize(agent, input, output);
  deps.conversations.set(
    input.runId,
    [...messages, ...responseMessages],
    input.conversation.generation,
  );
  return output;
}

/** How long a failing attempt waits for its withdrawal to leave the process. */
const WITHDRAWAL_WAIT_MS = 1000;

/**
 * Tells the run's streams that the text this attempt published live will not reach the log: the
 * step fails, and a retry (or nothing) takes its place. Waits (briefly) until the withdrawal has
 * left, so that it reaches a broker before a retry on another worker publishes its own text.
 */
async function withdrawLiveText(
  bus: LiveDeltaTransport,
  input: ModelStepInput,
  attempt: number,
  published: string[],
): Promise<void> {
  if (published.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    bus.publish(input.runId, {
      offset: input.chunkOffset,
      chunk: makeChunk(input.runId, 'text-withdrawn', { text: published.join('') }),
      step: input.chunkOffset,
      attempt,
    }),
    new Promise((resolve) => (timer = setTimeout(resolve, WITHDRAWAL_WAIT_MS))),
  ]);
  clearTimeout(timer);
}

/** The tool sets of each agent, by tool naming. */
const toolSets = new WeakMap<Agent, Map<ToolNaming, ToolSet>>();

/**
 * Input of an `agent-<key>` tool (SPEC §7), wrapped once: the wrapper keeps the JSON schema it
 * makes for the model at the first step.
 */
const DELEGATION_INPUT = zodSchema(
  z.object({ message: z.string().describe('The task for the sub-agent') }),
);

/**
 * The agent's tools as the model sees them: name (the key, or the id in runs started before
 * keys), description, input schema; no `execute`.
 */
function toolsForModel(agent: Agent, naming: ToolNaming = 'id'): ToolSet {
  const sets = toolSets.get(agent) ?? new Map<ToolNaming, ToolSet>();
  toolSets.set(agent, sets);
  let tools = sets.get(naming);
  if (!tools) {
    tools = {};
    for (const [name, tool] of agent.toolsNamedBy(naming)) {
      tools[name] = aiTool({
        ...(tool.description ? { description: tool.description } : {}),
        // Wrapped here, not at each step: the wrapper makes the JSON schema once and keeps it.
        inputSchema: zodSchema(tool.inputSchema),
      });
    }
    for (const [name, subAgent] of agent.subAgents) {
      tools[name] = aiTool({
        description: subAgent.description ?? `Delegate a task to the agent "${subAgent.name}".`,
        inputSchema: DELEGATION_INPUT,
      });
    }
    sets.set(naming, tools);
  }
  return tools;
}

interface ToolCallPart {
  toolCallId: string;
  toolName: string;
  input: unknown;
  invalid?: boolean;
  error?: unknown;
}

function toModelToolCall(part: ToolCallPart): ModelToolCall {
  const args = toJsonValue(part.input ?? {});
  const call: ModelToolCall = {
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    args,
    fingerprint: toolCallFingerprint(part.toolName, args),
  };
  if (part.invalid) {
    const reason =
      part.error instanceof Error ? part.error.message : 'the arguments do not match the tool';
    call.invalidReason = `Invalid call of tool "${part.toolName}": ${reason}`;
  }
  return call;
}

function usageOf(usage: {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  totalTokens?: number | undefined;
}): Usage {
  const inputTokens = usage.inputTokens ?? 0;
  const outputTokens = usage.outputTokens ?? 0;
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage.totalTokens ?? inputTokens + outputTokens,
  };
}
