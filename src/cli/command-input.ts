import type { ExitCode } from './exit-codes.js';
import type { Output } from './output.js';

/** Flags every command shares. */
export interface GlobalOptions {
  /** Temporal frontend; undefined: `TEMPORAL_ADDRESS` or `localhost:7233`. */
  address?: string;
  /** Undefined: `TEMPORAL_NAMESPACE` or `default`. */
  namespace?: string;
  /** Undefined: `tollgate`. */
  taskQueue?: string;
  json: boolean;
}

/** What a command gets once its command line has been parsed and checked. */
export interface CommandInput {
  /** Positional arguments, in the order of the command's `args`. */
  args: string[];
  /** The command's own options, by long name. */
  options: Record<string, string | boolean | undefined>;
  global: GlobalOptions;
  output: Output;
}

export type CommandHandler = (input: CommandInput) => Promise<ExitCode>;

/** A mistake on the command line: exit code 2, with the command's usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'USAGE';
}

/** The string value of an option, or undefined. */
export function stringOption(input: CommandInput, name: string): string | undefined {
  const value = input.options[name];
  return typeof value === 'string' ? value : undefined;
}

/** A whole-number option in `[min, max]`, or `fallback` when absent. */
export function integerOption(
  input: CommandInput,
  name: string,
  fallback: number,
  range: { min: number; max: number },
): number {
  const raw = stringOption(input, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < range.min || value > range.max) {
    throw new UsageError(
      `--${name} must be a whole number from ${range.min} to ${range.max}, not "${raw}".`,
    );
  }
  return value;
}
