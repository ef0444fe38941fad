/** How a command of `tollgate` is described: its words, arguments, options and help. */
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
  /** With this boolean option given, the positional arguments are not required. */
  argsOptionalWith?: string;
  options: Record<string, OptionSpec>;
  examples: string[];
  load(): Promise<CommandHandler>;
}
