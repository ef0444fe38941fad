/**
 * The model the demo uses when no OpenAI-compatible endpoint is configured: scripted, but it reads
 * the conversation, so its answer reflects what really happened to the deletion.
 */
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { scriptedModel, type ScriptedModel, type ScriptedTurn } from '../testing/index.js';

type Prompt = LanguageModelV4CallOptions['prompt'];
type ToolOutput = Extract<Prompt[number], { role: 'tool' }>['content'][number];

/** Pause between text deltas, ms: long enough to see the answer stream in. */
const DELTA_DELAY_MS = 30;
const RECORD_ID = 'rec-42';

/**
 * A scripted model that finds `rec-42`, asks to delete it, then says whether it was deleted or
 * declined. It decides from the prompt alone, so a run resumed by a new process continues right.
 */
export function demoModel(): ScriptedModel {
  return scriptedModel((prompt) => nextTurn(prompt), 'tollgate-demo');
}

function nextTurn(prompt: Prompt): ScriptedTurn {
  const last = prompt.at(-1);
  const result = last?.role === 'tool' ? last.content.at(-1) : undefined;
  if (result?.type !== 'tool-result') {
    return say(`Let me look up ${RECORD_ID} first.`, {
      toolName: 'findRecord',
      args: { id: RECORD_ID },
    });
  }
  const value = jsonOf(result);
  if (result.toolName === 'findRecord') {
    if (value?.found !== true)
      return say(`${RECORD_ID} does not exist, so there is nothing to delete.`);
    return say(
      `Found ${RECORD_ID}, last used ${String(value.lastUsed)}. Deleting it needs your approval.`,
      {
        toolName: 'deleteRecord',
        args: { id: RECORD_ID },
      },
    );
  }
  if (value?.deleted === true) return say(`Done: ${RECORD_ID} has been deleted.`);
  // A declined call comes back as the decline reason in text.
  const why = result.output.type === 'text' ? ` (${result.output.value})` : '';
  return say(
    `OK, I did not delete ${RECORD_ID}: the deletion was declined${why}. It is still there.`,
  );
}

/** A turn whose text streams word by word, optionally ending in one tool call. */
function say(text: string, toolCall?: { toolName: string; args: unknown }): ScriptedTurn {
  return {
    text: text.match(/\S+\s*/g) ?? [text],
    delayMs: DELTA_DELAY_MS,
    ...(toolCall ? { toolCalls: [toolCall] } : {}),
  };
}

function jsonOf(
  part: Extract<ToolOutput, { type: 'tool-result' }>,
): Record<string, unknown> | undefined {
  const { output } = part;
  if (output.type !== 'json' || typeof output.value !== 'object' || output.value === null)
    return undefined;
  return output.value as Record<string, unknown>;
}
