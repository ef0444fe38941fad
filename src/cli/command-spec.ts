/** What a command of `tollgate` is: words, arguments, options, help and the code it loads. */
import type { CommandHandler } from './command-input.js';

/** One `--option` of a command. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  /** Placeholder of the value in help, e.g. `<id>`. */
  value?: string;
  short?: string;
  description: string;
}

export interface CommandSpec {
  /** Words that select the command, e.g. `runs pending`. */
  name: string;
  summary: string;
  /** Required positional arguments, as shown in help. */
  args: string[];
  /** With this option given (a flag, or a string option with a value), the positional arguments are not required. */
  argsOptionalWith?: string;
  options: Record<string, OptionSpec>;
  examples: string[];
  load(): Promise<CommandHandler>;
}

/** Options every command accepts. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  address: {
    type: 'string',
    value: '<host:port>',
    description: 'Temporal frontend (default: $TEMPORAL_ADDRESS or localhost:7233)',
  },
  namespace: {
    type: 'string',
    value: '<name>',
    description: 'Temporal namespace (default: $TEMPORAL_NAMESPACE or default)',
  },
  'task-queue': {
    type: 'string',
    value: '<name>',
    description: 'Task queue of agent runs (default: tollgate)',
  },
  json: {
    type: 'boolean',
    description: 'Machine output: one JSON document, or JSON lines for streams',
  },
  help: { type: 'boolean', short: 'h', description: 'Show help' },
};
