/**
 * The agent of the load benchmark: step 1 asks for the gated `approve-me` tool, step 2 answers
 * once it ran. The smallest run that parks on an approval and finishes after it.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { z } from 'zod';
import { Agent, createTool } from '../../src/index.js';
import { scriptedModel, type ScriptedModel, type TurnPicker } from '../../src/testing/index.js';

export const LOAD_AGENT_ID = 'load-agent';
export const LOAD_TOOL = 'approve-me';

const picker: TurnPicker = (prompt) => {
  if (prompt.some((message) => message.role === 'tool')) return { text: 'Done.' };
  const user = prompt.find((message) => message.role === 'user');
  const id = /load run ([\w-]+)/.exec(JSON.stringify(user?.content ?? ''))?.[1] ?? 'unknown';
  return { toolCalls: [{ toolName: LOAD_TOOL, args: { id } }] };
};

export function loadPrompt(id: string): string {
  return `load run ${id}`;
}

/**
 * `scriptedModel` keeps every prompt it was sent (for tests to inspect); over 10 000 runs that
 * log would be the worker's biggest memory user, so this model forgets them.
 */
function forgetful(inner: ScriptedModel): LanguageModelV4 {
  return {
    ...inner,
    async doStream(options) {
      try {
        return await inner.doStream(options);
      } finally {
        inner.prompts.length = 0;
      }
    },
  };
}

export function loadAgent(): Agent {
  return new Agent({
    id: LOAD_AGENT_ID,
    instructions: 'You are the agent of the load benchmark.',
    model: forgetful(scriptedModel(picker, LOAD_AGENT_ID)),
    tools: {
      [LOAD_TOOL]: createTool({
        id: LOAD_TOOL,
        description: 'Needs approval, then returns at once',
        inputSchema: z.object({ id: z.string() }),
        requireApproval: true,
        execute: ({ id }) => ({ id, done: true }),
      }),
    },
  });
}
