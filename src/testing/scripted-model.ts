import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';

/** One scripted model turn: text (streamed in pieces) and/or tool calls. */
export interface ScriptedTurn {
  /** The reply text; an array streams one delta per element. */
  text?: string | string[];
  toolCalls?: Array<{ toolName: string; args: unknown; toolCallId?: string }>;
  /** Pause before each text delta, ms. Default 0. */
  delayMs?: number;
  finishReason?: 'stop' | 'tool-calls' | 'length';
}

/** Chooses the next turn from the prompt, for models that react to what they were sent. */
export type TurnPicker = (
  prompt: LanguageModelV4CallOptions['prompt'],
  call: number,
) => ScriptedTurn;

export interface ScriptedModel extends LanguageModelV4 {
  /** Every prompt the model received, in order. */
  readonly prompts: LanguageModelV4CallOptions['prompt'][];
  /** The names of the tools offered with each prompt, in order. */
  readonly offeredTools: string[][];
}

export interface ScriptedModelOptions {
  /**
   * Keep every prompt in `prompts` and `offeredTools` (default `true`). Each prompt holds the
   * whole conversation, so a run of thousands of steps (a benchmark) should pass `false`: the
   * kept prompts would grow with the square of its length.
   */
  recordPrompts?: boolean;
}

/**
 * A deterministic AI SDK language model for tests, demos and benchmarks. It fails loudly, saying
 * which call was unexpected, when a run asks it for more turns than it was given.
 */
export function scriptedModel(
  script: ScriptedTurn[] | TurnPicker,
  modelId = 'scripted',
  options: ScriptedModelOptions = {},
): ScriptedModel {
  const prompts: LanguageModelV4CallOptions['prompt'][] = [];
  const offeredTools: string[][] = [];
  const record = options.recordPrompts ?? true;
  let calls = 0;
  let toolCallCounter = 0;
  const pick = ({ prompt, tools }: LanguageModelV4CallOptions): ScriptedTurn => {
    const call = calls++;
    if (record) {
      prompts.push(prompt);
      offeredTools.push((tools ?? []).map((tool) => tool.name));
    }
    if (typeof script === 'function') return script(prompt, call);
    const turn = script[call];
    if (!turn) {
      throw new Error(
        `Scripted model "${modelId}": unexpected call #${call + 1}; the script has ${script.length} turn(s). Last message: ${describeLast(prompt)}`,
      );
    }
    return turn;
  };
  return {
    specificationVersion: 'v4',
    provider: 'tollgate-scripted',
    modelId,
    supportedUrls: {},
    prompts,
    offeredTools,
    async doGenerate(options) {
      const parts = partsOf(pick(options), () => `call_${++toolCallCounter}`);
      const finish = parts.at(-1) as Extract<LanguageModelV4StreamPart, { type: 'finish' }>;
      const text = parts
        .flatMap((part) => (part.type === 'text-delta' ? [part.delta] : []))
        .join('');
      const calls = parts.filter((part) => part.type === 'tool-call');
      return {
        content: [...(text ? [{ type: 'text' as const, text }] : []), ...calls],
        finishReason: finish.finishReason,
        usage: finish.usage,
        warnings: [],
      };
    },
    async doStream(options) {
      const turn = pick(options);
      const parts = partsOf(turn, () => `call_${++toolCallCounter}`);
      const delayMs = turn.delayMs ?? 0;
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async start(controller) {
            for (const part of parts) {
              if (delayMs > 0 && part.type === 'text-delta')
                await new Promise((resolve) => setTimeout(resolve, delayMs));
              controller.enqueue(part);
            }
            controller.close();
          },
        }),
      };
    },
  };
}

function partsOf(turn: ScriptedTurn, nextId: () => string): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  const pieces = turn.text === undefined ? [] : Array.isArray(turn.text) ? turn.text : [turn.text];
  if (pieces.length > 0) {
    parts.push({ type: 'text-start', id: 'text' });
    for (const delta of pieces) parts.push({ type: 'text-delta', id: 'text', delta });
    parts.push({ type: 'text-end', id: 'text' });
  }
  const calls = turn.toolCalls ?? [];
  for (const call of calls) {
    parts.push({
      type: 'tool-call',
      toolCallId: call.toolCallId ?? nextId(),
      toolName: call.toolName,
      input: JSON.stringify(call.args),
    });
  }
  const outputTokens = pieces.join('').length;
  parts.push({
    type: 'finish',
    finishReason: {
      unified: turn.finishReason ?? (calls.length > 0 ? 'tool-calls' : 'stop'),
      raw: undefined,
    },
    usage: {
      inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: outputTokens, text: undefined, reasoning: undefined },
    },
  });
  return parts;
}

function describeLast(prompt: LanguageModelV4CallOptions['prompt']): string {
  const last = prompt.at(-1);
  if (!last) return '(empty prompt)';
  const text = JSON.stringify(last.content);
  return `${last.role}: ${text.length > 200 ? `${text.slice(0, 197)}...` : text}`;
}
