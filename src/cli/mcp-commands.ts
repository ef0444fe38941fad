/** The MCP commands of `tollgate` (docs/mcp.md "Pins across deploys"). */
import type { CommandSpec } from './command-spec.js';

export const MCP_COMMANDS: CommandSpec[] = [
  {
    name: 'mcp repin',
    summary:
      "Accept an MCP server's changed tool definitions on purpose: drop their stored pins, so the next worker to check each tool pins the definition it was started with.",
    args: ['server'],
    options: {
      tool: {
        type: 'string',
        value: '<a,b>',
        description:
          'Only these tools (names on the server), comma-separated (default: every stored one)',
      },
      as: {
        type: 'string',
        value: '<id>',
        description: 'Who re-pins (default: $USER@hostname); recorded with the re-pin',
      },
    },
    examples: [
      'tollgate mcp repin files --tool delete_file --as alice',
      'tollgate mcp repin files',
    ],
    load: async () => (await import('./mcp-repin.js')).mcpRepin,
  },
];
