import { generateText, jsonSchema, tool, type JSONSchema7 } from 'ai';
import { toJsonValue, type JsonValue } from '../common/json.js';
import type { ExtractResumeDataInput } from '../common/run-types.js';
import type { AgentRegistry } from './agent-registry.js';
import { resolveModel } from './resolve-model.js';

/** The tool through which the model hands over the data it extracted. */
export const RESUME_DATA_TOOL = 'provide_resume_data';

/**
 * Asks the agent's model to read a user's reply as the data a suspended tool asked for, shaped by
 * the tool's `resumeSchema`. Returns null when the model gives nothing; the run validates the
 * result against the schema before it is used.
 */
export async function extractResumeData(
  agents: AgentRegistry,
  input: ExtractResumeDataInput,
): Promise<JsonValue | null> {
  const agent = agents.require(input.agentId);
  const result = await generateText({
    model: await resolveModel(agent.model),
    system:
      'A tool paused to ask the user for more input. Read the user reply and call ' +
      `${RESUME_DATA_TOOL} with exactly the data the tool asked for. Do not invent values.`,
    messages: [
      {
        role: 'user',
        content:
          `Tool "${input.toolName}" was called with ${JSON.stringify(input.args)} and asked: ` +
          `${JSON.stringify(input.suspendPayload)}.\nThe user replied: ${JSON.stringify(input.message)}`,
      },
    ],
    tools: {
      [RESUME_DATA_TOOL]: tool({
        description: 'The data the paused tool needs, taken from the user reply.',
        inputSchema: jsonSchema(JSON.parse(input.resumeSchema) as JSONSchema7),
      }),
    },
    toolChoice: { type: 'tool', toolName: RESUME_DATA_TOOL },
    maxRetries: 0,
  });
  const call = result.toolCalls.find((c) => c.toolName === RESUME_DATA_TOOL);
  return call ? toJsonValue(call.input) : null;
}
