import { z } from 'zod';
import { createTool } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';

/**
 * A budget test's model and tool: `toolSteps` steps that each call `work` (10 tokens each, the
 * scripted model's input count), then a reply 'Done.' (15 tokens). `counts` says how many model
 * steps and tool executions happened; tests reset it.
 */
export function budgetWork(toolSteps: number) {
  const counts = { modelSteps: 0, executions: 0 };
  const model = scriptedModel((prompt) => {
    counts.modelSteps++;
    const results = prompt.filter((message) => message.role === 'tool').length;
    if (results >= toolSteps) return { text: 'Done.' };
    return { toolCalls: [{ toolName: 'work', args: { n: results + 1 } }] };
  });
  const work = createTool({
    id: 'work',
    inputSchema: z.object({ n: z.number() }),
    execute: async ({ n }) => {
      counts.executions++;
      return { worked: n };
    },
  });
  return { counts, model, work };
}
