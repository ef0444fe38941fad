/**
 * Turns `process.argv` into a command and its options. One `parseArgs` pass knows every option
 * of every command (so values are never mistaken for command words, wherever flags stand), then
 * the options given are checked against the chosen command.
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { COMMANDS, GLOBAL_OPTIONS, type CommandSpec, type OptionSpec } from './commands.js';
import { UsageError, type GlobalOptions } from './command-input.js';

export type ParsedCommandLine =
  | { kind: 'help'; topic: CommandSpec | 'runs' | undefined }
  | { kind: 'version' }
  | {
      kind: 'run';
      spec: CommandSpec;
      args: string[];
      options: Record<string, string | boolean | undefined>;
      global: GlobalOptions;
    };

const VERSION_OPTION: OptionSpec = { type: 'boolean', description: 'Print the version' };

/** Every option of every command: option names mean the same in all commands. */
function allOptions(): Record<string, OptionSpec> {
  const options: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS, version: VERSION_OPTION };
  for (const spec of COMMANDS) Object.assign(options, spec.options);
  return options;
}

/** Whether `--json` was asked for, even on a command line that fails to parse. */
export function wantsJson(argv: string[]): boolean {
  return argv.includes('--json');
}

/** The command named by the leading words, preferring two-word names (`runs pending`). */
export function findCommand(words: string[]): CommandSpec | undefined {
  const two = words.slice(0, 2).join(' ');
  return (
    COMMANDS.find((spec) => spec.name === two) ?? COMMANDS.find((spec) => spec.name === words[0])
  );
}

/** @throws UsageError for unknown commands or options, missing values or arguments. */
export function parseCommandLine(argv: string[]): ParsedCommandLine {
  const config: ParseArgsOptionsConfig = {};
  for (const [name, option] of Object.entries(allOptions())) {
    config[name] = { type: option.type, ...(option.short ? { short: option.short } : {}) };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: config, allowPositionals: true, tokens: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals, tokens } = parsed;
  if (values.version) return { kind: 'version' };
  if (positionals[0] === 'help') {
    const rest = positionals.slice(1);
    return { kind: 'help', topic: rest[0] === 'runs' && !rest[1] ? 'runs' : findCommand(rest) };
  }
  const spec = findCommand(positionals);
  if (!spec) {
    if (values.help) return { kind: 'help', topic: positionals[0] === 'runs' ? 'runs' : undefined };
    if (positionals.length === 0) throw new UsageError('Name a command.');
    if (positionals[0] === 'runs') {
      const what =
        positionals[1] === undefined
          ? 'runs needs a subcommand'
          : `Unknown command "runs ${positionals[1]}"`;
      throw new UsageError(`${what}; try "runs pending".`);
    }
    throw new UsageError(`Unknown command "${positionals[0]}".`);
  }
  if (values.help) return { kind: 'help', topic: spec };

  const given = new Set(tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : [])));
  for (const name of given) {
    if (!(name in GLOBAL_OPTIONS) && !(name in spec.options)) {
      throw new UsageError(`${spec.name} takes no --${name} option.`);
    }
  }
  const args = positionals.slice(spec.name.split(' ').length);
  const argsOptional =
    spec.argsOptionalWith !== undefined && values[spec.argsOptionalWith] !== undefined;
  if (!argsOptional && args.length < spec.args.length) {
    throw new UsageError(`${spec.name} needs <${spec.args[args.length]}>.`);
  }
  if (args.length > spec.args.length) {
    throw new UsageError(`${spec.name} got an unexpected argument "${args[spec.args.length]}".`);
  }
  const options: Record<string, string | boolean | undefined> = {};
  const str = (name: string) => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  for (const name of Object.keys(spec.options)) {
    options[name] = values[name] === true ? true : str(name);
  }
  const global: GlobalOptions = { json: values.json === true };
  if (str('address') !== undefined) global.address = str('address');
  if (str('namespace') !== undefined) global.namespace = str('namespace');
  if (str('task-queue') !== undefined) global.taskQueue = str('task-queue');
  return { kind: 'run', spec, args, options, global };
}
