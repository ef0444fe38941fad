import { COMMANDS, GLOBAL_OPTIONS, type CommandSpec, type OptionSpec } from './commands.js';
import { EXIT_CODE_HELP } from './exit-codes.js';

function usageLine(spec: CommandSpec): string {
  const args = spec.args.map((arg) => ` <${arg}>`).join('');
  return `tollgate ${spec.name}${args} [options]`;
}

function optionLines(options: Record<string, OptionSpec>): string {
  const rows = Object.entries(options).map(([name, option]) => {
    const flag = `${option.short ? `-${option.short}, ` : '    '}--${name}${option.value ? ` ${option.value}` : ''}`;
    return [flag, option.description] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`).join('\n');
}

/** Help text lines of at most `width` characters, each after `indent` spaces. */
function wrap(text: string, width: number, indent: number): string {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/)) {
    if (current && current.length + 1 + word.length > width - indent) {
      lines.push(current);
      current = word;
    } else {
      current = current ? `${current} ${word}` : word;
    }
  }
  if (current) lines.push(current);
  return lines.map((line) => ' '.repeat(indent) + line).join('\n');
}

const HELP_WIDTH = 96;

/** `tollgate --help`: every command, the global options and the exit codes. */
export function generalHelp(): string {
  const commands = COMMANDS.map(
    (spec) =>
      `  ${usageLine(spec).slice('tollgate '.length)}\n${wrap(spec.summary, HELP_WIDTH, 6)}`,
  );
  return `Usage: tollgate <command> [options]

Operate Tollgate agent runs from a terminal: host agents, list the calls that wait for a
decision, approve, decline or resume them, and watch runs.

Commands:
${commands.join('\n')}

Global options:
${optionLines({ ...GLOBAL_OPTIONS, version: { type: 'boolean', description: 'Print the version' } })}

Run "tollgate <command> --help" for a command's options and examples.

${EXIT_CODE_HELP}
`;
}

/** `tollgate runs --help`: the `runs` group. */
export function runsHelp(): string {
  const runs = COMMANDS.filter((spec) => spec.name.startsWith('runs '));
  return `Usage: tollgate runs <subcommand> [options]

Subcommands:
${runs.map((spec) => `  ${spec.name.slice('runs '.length)}  ${spec.summary}`).join('\n')}
`;
}

/** `tollgate <command> --help`. */
export function commandHelp(spec: CommandSpec): string {
  const own = Object.keys(spec.options).length ? `Options:\n${optionLines(spec.options)}\n\n` : '';
  return `Usage: ${usageLine(spec)}

${spec.summary}

${own}Global options:
${optionLines(GLOBAL_OPTIONS)}

Examples:
${spec.examples.map((example) => `  ${example}`).join('\n')}

${EXIT_CODE_HELP}
`;
}

/** The short hint printed after a usage error. */
export function usageHint(spec: CommandSpec | undefined): string {
  return spec
    ? `usage: ${usageLine(spec)}\nRun "tollgate ${spec.name} --help" for details.`
    : 'Run "tollgate --help" for the commands.';
}
