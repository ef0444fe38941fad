/** `tollgate mcp repin`: drops stored MCP pins on purpose, as an operator (no scope). */
import { stringOption, type CommandHandler } from './command-input.js';
import { decidedByFrom, openTollgate } from './connect.js';
import { EXIT } from './exit-codes.js';

export const mcpRepin: CommandHandler = async (input) => {
  const { output } = input;
  const server = input.args[0]!;
  const tools = (stringOption(input, 'tool') ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const identity = decidedByFrom(stringOption(input, 'as'), undefined);
  const tollgate = openTollgate(input.global);
  try {
    const state = await tollgate.mcpPins.repin(server, tools, { identity });
    const repin = state.repins.at(-1)!;
    output.document({ server, repin, pins: state.pins });
    output.line(
      `Re-pinned ${repin.tools.join(', ') || 'no tool'} of MCP server ${server}: the next worker to check each pins the definition it runs with.`,
    );
    return EXIT.ok;
  } finally {
    await tollgate.shutdown();
  }
};
