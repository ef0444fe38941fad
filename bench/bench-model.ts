/**
 * The scripted agent loop every measurement shares: the model calls one tool per step until the
 * last step, which answers with text. The number of steps is read from the prompt, so the same
 * model serves runs of any length, in-process or through Tollgate.
 */
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import type { TurnPicker } from '../src/testing/scripted-model.js';

type Prompt = LanguageModelV4CallOptions['prompt'];

/** The prompt that asks for a loop of `steps` model steps. */
export function loopPrompt(steps: number): string {
  return `Work for ${steps} steps, calling the tool at each step but the last.`;
}

export interface LoopModelOptions {
  /** Tool the model calls at each step but the last. */
  toolName: string;
  /** Characters of text the model writes at each step. Default: a short sentence. */
  textChars?: number;
}

/** A picker for `scriptedModel`: tool call at steps 1..N-1, text only at step N. */
export function loopPicker(options: LoopModelOptions): TurnPicker {
  return (prompt) => {
    const target = stepsAskedFor(prompt);
    const step = toolResultsIn(prompt) + 1;
    const text = textOf(step, options.textChars);
    if (step >= target) return { text: `${text} Finished after ${step} steps.` };
    return { text, toolCalls: [{ toolName: options.toolName, args: { step } }] };
  };
}

/** A deterministic filler of `chars` characters, so message sizes are what the bench says. */
export function filler(label: string, chars: number): string {
  const base = `${label} `;
  return base.padEnd(chars, 'lorem ipsum dolor sit amet ').slice(0, chars);
}

function textOf(step: number, chars: number | undefined): string {
  return chars === undefined ? `Step ${step}.` : filler(`Step ${step}:`, chars);
}

function stepsAskedFor(prompt: Prompt): number {
  const user = prompt.find((message) => message.role === 'user');
  const match = /Work for (\d+) steps/.exec(JSON.stringify(user?.content ?? ''));
  if (!match)
    throw new Error(
      `Bench model: the prompt does not say how many steps to run: ${JSON.stringify(user)}`,
    );
  return Number(match[1]);
}

function toolResultsIn(prompt: Prompt): number {
  let count = 0;
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    count += message.content.filter((part) => part.type === 'tool-result').length;
  }
  return count;
}
