/**
 * Command-line options of the on-demand scripts: `--name value` or `--name=value` for whole
 * numbers and choices, `--name` alone for flags.
 */

export interface IntOption {
  default: number;
  min: number;
  max: number;
  help: string;
}

/** One of a few words, e.g. `--versioning pinned|auto-upgrade`. */
export interface ChoiceOption<C extends string = string> {
  choices: readonly C[];
  default: C;
  help: string;
}

/** Present or not, e.g. `--skip-retire`; takes no value. */
export interface FlagOption {
  flag: true;
  help: string;
}

export type OptionSpec = IntOption | ChoiceOption | FlagOption;

type ValueOf<O> = O extends IntOption
  ? number
  : O extends ChoiceOption<infer C>
    ? C
    : O extends FlagOption
      ? boolean
      : never;

/**
 * Parses `argv` against `spec`; unknown options, values that are not whole numbers, values
 * outside [min, max] and words that are not among the choices end the process with a usage
 * message (exit 2). `--help` prints the options.
 */
export function parseOptions<S extends Record<string, OptionSpec>>(
  script: string,
  argv: string[],
  spec: S,
): { [K in keyof S]: ValueOf<S[K]> } {
  const entries = Object.entries(spec);
  const values: Record<string, number | string | boolean> = Object.fromEntries(
    entries.map(([name, option]) => [name, 'flag' in option ? false : option.default]),
  );
  const usage = () =>
    [
      `usage: node dist/bench/${script}.js [options]`,
      ...entries.map(([name, option]) => `  --${name}${describe(option)}`),
    ].join('\n');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      console.log(usage());
      process.exit(0);
    }
    const match = /^--([\w-]+)(?:=(.*))?$/.exec(arg);
    const name = match?.[1];
    if (!match || name === undefined || !Object.hasOwn(spec, name))
      fail(`unknown option ${arg}`, usage());
    const option: OptionSpec = spec[name]!;
    if ('flag' in option) {
      if (match[2] !== undefined) fail(`--${name} takes no value`, usage());
      values[name] = true;
      continue;
    }
    const text = match[2] ?? argv[++i];
    if ('choices' in option) {
      if (text === undefined || !option.choices.includes(text))
        fail(`--${name} needs one of ${option.choices.join(', ')}, not ${text}`, usage());
      values[name] = text;
      continue;
    }
    const value = Number(text);
    if (text === undefined || !Number.isInteger(value) || value < option.min || value > option.max)
      fail(`--${name} needs a whole number in ${option.min}..${option.max}, not ${text}`, usage());
    values[name] = value;
  }
  return values as { [K in keyof S]: ValueOf<S[K]> };
}

/** `parseOptions` for scripts whose options are all whole numbers. */
export function parseIntOptions<K extends string>(
  script: string,
  argv: string[],
  spec: Record<K, IntOption>,
): Record<K, number> {
  return parseOptions(script, argv, spec as Record<string, IntOption>) as Record<K, number>;
}

function describe(option: OptionSpec): string {
  if ('flag' in option) return `  ${option.help}`;
  if ('choices' in option)
    return ` ${option.choices.join('|')}  ${option.help} (default ${option.default})`;
  return ` <n>  ${option.help} (default ${option.default}, ${option.min}..${option.max})`;
}

function fail(message: string, usage: string): never {
  console.error(`error: ${message}\n${usage}`);
  process.exit(2);
}
