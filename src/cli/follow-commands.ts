/**
 * The commands that start runs or follow them: `run`, `fork` and `watch`. Each command's code is
 * loaded only when it runs.
 */
import type { CommandSpec, OptionSpec } from './command-spec.js';

/** `fork --keep/--ask/--decline`: tool call ids of the forked step, comma-separated. */
const FORK_CALLS = (description: string): OptionSpec => ({
  type: 'string',
  value: '<id,id>',
  description,
});

export const FOLLOW_COMMANDS: CommandSpec[] = [
  {
    name: 'run',
    summary:
      'Start a run of an agent that workers host and follow it; when it waits, show the waiting calls and follow on once someone decides.',
    args: ['agentId', 'prompt'],
    options: {
      thread: { type: 'string', value: '<id>', description: 'Memory thread (with --resource)' },
      resource: { type: 'string', value: '<id>', description: 'Memory resource (with --thread)' },
      'max-steps': {
        type: 'string',
        value: '<n>',
        description: "Most model steps of the run (default: the agent's)",
      },
      'active-tools': {
        type: 'string',
        value: '<a,b>',
        description:
          "Only these of the agent's tools, comma-separated (docs/run-tools.md); empty: none",
      },
      'run-id': { type: 'string', value: '<id>', description: 'The run id (default: generated)' },
      once: {
        type: 'boolean',
        description: 'Stop (exit 3) when the run waits for a decision instead of following on',
      },
    },
    examples: [
      'tollgate run ops-agent "Delete the stale records"',
      'tollgate run ops-agent "Look up r1" --active-tools lookup --once --json',
    ],
    load: async () => (await import('./start.js')).run,
  },
  {
    name: 'fork',
    summary:
      "Start a new run from a run's conversation at the end of a step, with a changed prompt or decision (docs/fork.md); the original is only read.",
    args: ['runId'],
    options: {
      step: {
        type: 'string',
        value: '<n>',
        description: 'The step to fork after (required; 0: before the first model step)',
      },
      prompt: { type: 'string', value: '<text>', description: 'A user message for the fork' },
      'prompt-mode': {
        type: 'string',
        value: '<replace|append>',
        description:
          'replace the opening prompt (step 0 only, its default) or append (default after)',
      },
      keep: FORK_CALLS('Keep the original result of these calls (default for ended calls)'),
      ask: FORK_CALLS('Ask for a decision again in the fork (default for calls still waiting)'),
      decline: FORK_CALLS('Decline these calls in the fork: they do not run'),
      reason: {
        type: 'string',
        value: '<text>',
        description: 'With --decline: what the model is told',
      },
      'max-steps': { type: 'string', value: '<n>', description: "The fork's own step limit" },
      as: {
        type: 'string',
        value: '<id>',
        description: 'Who forks (default: $USER@hostname); recorded in the audit trail',
      },
    },
    examples: [
      'tollgate fork ops-1234 --step 1 --decline call_2 --reason "not this one"',
      'tollgate fork ops-1234 --step 0 --prompt "Delete rec-2 instead"',
    ],
    load: async () => (await import('./fork.js')).fork,
  },
  {
    name: 'watch',
    summary:
      'Follow a run: print its text and tool activity; when it waits, show the waiting calls and keep watching until it completes.',
    args: ['runId'],
    options: {
      from: {
        type: 'string',
        value: '<offset>',
        description: 'Chunk offset to start from (default: 0, the start of the run)',
      },
      once: {
        type: 'boolean',
        description: 'Stop (exit 3) when the run waits for a decision instead of watching on',
      },
    },
    examples: ['tollgate watch ops-1234', 'tollgate watch ops-1234 --once --json'],
    load: async () => (await import('./watch.js')).watch,
  },
];
