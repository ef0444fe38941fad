/**
 * The commands of `tollgate`: names, arguments, options and help, in the order help lists them.
 * Each command's code is loaded only when it runs, so `--help` and usage errors answer without
 * connecting to anything.
 */
import type { CommandSpec } from './command-spec.js';
import { DEPLOYMENT_COMMANDS } from './deployment-commands.js';
import { FOLLOW_COMMANDS } from './follow-commands.js';
import { GRANT_COMMANDS } from './grant-commands.js';
import { LIVE_POLICY_COMMANDS } from './live-policy-commands.js';
import { MCP_COMMANDS } from './mcp-commands.js';
import { PROCESS_COMMANDS } from './process-commands.js';
import { RUN_COMMANDS } from './run-commands.js';

export { GLOBAL_OPTIONS, type CommandSpec, type OptionSpec } from './command-spec.js';

export const COMMANDS: CommandSpec[] = [
  ...PROCESS_COMMANDS,
  ...FOLLOW_COMMANDS,
  ...RUN_COMMANDS,
  ...GRANT_COMMANDS,
  ...LIVE_POLICY_COMMANDS,
  ...MCP_COMMANDS,
  ...DEPLOYMENT_COMMANDS,
];
