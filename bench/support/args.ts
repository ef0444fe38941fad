/** Command-line options of the on-demand scripts: `--name value` or `--name=value`, whole numbers. */

export interface IntOption {
  default: number;
  min: number;
  max: number;
  help: string;
}

/**
 * Parses `argv` against `spec`; unknown options, values that are not whole numbers and values
 * outside [min, max] end the process with a usage message (exit 2). `--help` prints the options.
 */
export function parseIntOptions<K extends string>(
  script: string,
  argv: string[],
  spec: Record<K, IntOption>,
): Record<K, number> {
  const values = Object.fromEntries(
    Object.entries<IntOption>(spec).map(([name, option]) => [name, option.default]),
  ) as Record<K, number>;
  const usage = () =>
    [
      `usage: node dist/bench/${script}.js [options]`,
      ...Object.entries<IntOption>(spec).map(
        ([name, option]) =>
          `  --${name} <n>  ${option.help} (default ${option.default}, ${option.min}..${option.max})`,
      ),
    ].join('\n');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      console.log(usage());
      process.exit(0);
    }
    const match = /^--([\w-]+)(?:=(.*))?$/.exec(arg);
    const name = match?.[1];
    if (!match || name === undefined || !(name in spec)) fail(`unknown option ${arg}`, usage());
    const text = match[2] ?? argv[++i];
    const value = Number(text);
    const option = spec[name as K];
    if (text === undefined || !Number.isInteger(value) || value < option.min || value > option.max)
      fail(`--${name} needs a whole number in ${option.min}..${option.max}, not ${text}`, usage());
    values[name as K] = value;
  }
  return values;
}

function fail(message: string, usage: string): never {
  console.error(`error: ${message}\n${usage}`);
  process.exit(2);
}
