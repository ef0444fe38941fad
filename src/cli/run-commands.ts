/**
 * The commands that read and steer runs and agents: list, move, decide, hand off, resume, audit
 * and `doctor` (`follow-commands.ts` has those that start and follow runs). Each command's code is loaded only when it runs.
 */
import type { CommandSpec, OptionSpec } from './command-spec.js';
import { GRANT_WITH_APPROVAL } from './grant-commands.js';

const DECIDER: Record<string, OptionSpec> = {
  as: {
    type: 'string',
    value: '<id>',
    description: 'Who decides (default: $USER@hostname); recorded in the audit trail',
  },
  roles: {
    type: 'string',
    value: '<a,b>',
    description: 'Roles of the decider, comma-separated (default: cli)',
  },
};

const WAIT: OptionSpec = {
  type: 'string',
  value: '<duration>',
  description:
    'How long to wait for the run to confirm, e.g. 30s (default: 20s); refused by the run after that plus 5s',
};

/** `approve --all` / `decline --all`: every matching waiting call, as one batch. */
const ALL: Record<string, OptionSpec> = {
  all: {
    type: 'boolean',
    description:
      'Decide every call of --agent that waits for approval (no run id), each judged on its own',
  },
  agent: { type: 'string', value: '<id>', description: 'With --all: the agent (required)' },
  tool: { type: 'string', value: '<name>', description: 'With --all: only calls of this tool' },
  run: { type: 'string', value: '<id>', description: 'With --all: only calls of this run' },
};

const TOOL_CALL: OptionSpec = {
  type: 'string',
  value: '<id>',
  description: 'The waiting call to decide (default: the most recently requested one)',
};

export const RUN_COMMANDS: CommandSpec[] = [
  {
    name: 'runs pending',
    summary: 'List the tool calls that wait for a decision, across agents.',
    args: [],
    options: {
      agent: { type: 'string', value: '<id>', description: 'Only runs of this agent' },
      thread: { type: 'string', value: '<id>', description: 'Only runs of this thread' },
      resource: { type: 'string', value: '<id>', description: 'Only runs of this resource' },
    },
    examples: ['tollgate runs pending', 'tollgate runs pending --agent ops-agent --json'],
    load: async () => (await import('./runs.js')).runsPending,
  },
  {
    name: 'runs move',
    summary:
      "Move a pinned run that waits on a person to another build of its Worker Deployment, once that build's workers replayed it (docs/deploying.md).",
    args: ['runId'],
    options: {
      to: {
        type: 'string',
        value: '<buildId>',
        description: "The build to move to (default: the deployment's current build)",
      },
      reason: { type: 'string', value: '<text>', description: 'Why (kept in the audit trail)' },
      as: {
        type: 'string',
        value: '<id>',
        description: 'Who moves (default: $USER@hostname); recorded in the audit trail',
      },
    },
    examples: [
      'tollgate runs move ops-1234',
      'tollgate runs move ops-1234 --to 2026.12.05-1 --reason "fixes the retry bug" --as alice',
    ],
    load: async () => (await import('./runs-move.js')).runsMove,
  },
  {
    name: 'agents',
    summary:
      'List the agents workers published on the task queue, and whether a worker hosting each runs now.',
    args: [],
    options: {},
    examples: ['tollgate agents', 'tollgate agents --task-queue ops --json'],
    load: async () => (await import('./agents.js')).agentsList,
  },
  {
    name: 'agents remove',
    summary:
      'Take an agent out of the directory (runs of it are then refused until a worker hosting it starts).',
    args: ['agentId'],
    options: {},
    examples: ['tollgate agents remove old-agent'],
    load: async () => (await import('./agents.js')).agentsRemove,
  },
  {
    name: 'approve',
    summary:
      'Approve a waiting call, then follow the run until it finishes or waits again; or, with --all, every matching call.',
    args: ['runId'],
    argsOptionalWith: 'all',
    options: {
      ...ALL,
      'tool-call': TOOL_CALL,
      fingerprint: {
        type: 'string',
        value: '<hex>',
        description: "Refuse unless the call's fingerprint matches (as shown by runs pending)",
      },
      reason: { type: 'string', value: '<text>', description: 'Why (kept in the audit trail)' },
      args: {
        type: 'string',
        value: '<json>',
        description: "Approve with edited arguments (checked against the tool's input schema)",
      },
      amount: {
        type: 'string',
        value: '<number>',
        description: "A budget approval: raise the run's limit by this much (docs/budgets.md)",
      },
      ...GRANT_WITH_APPROVAL,
      ...DECIDER,
      wait: WAIT,
    },
    examples: [
      'tollgate approve ops-1234',
      `tollgate approve ops-1234 --args '{"id":"rec-7"}'`,
      'tollgate approve ops-1234 --tool-call call_2 --fingerprint 3fa2b9c1 --as alice --roles ops',
      'tollgate approve --all --agent ops-agent --tool restartService --as alice',
      'tollgate approve ops-1234 --grant 4h --grant-scope thread --as alice',
      'tollgate approve ops-1234 --tool-call tollgate-budget-1 --amount 20000 --as alice',
    ],
    load: async () => (await import('./decide.js')).approve,
  },
  {
    name: 'decline',
    summary:
      'Decline a waiting call (it never runs), then follow the run until it finishes or waits again; or, with --all, every matching call.',
    args: ['runId'],
    argsOptionalWith: 'all',
    options: {
      ...ALL,
      'tool-call': TOOL_CALL,
      reason: {
        type: 'string',
        value: '<text>',
        description: 'Told to the model as the tool result (default: not approved by the user)',
      },
      ...DECIDER,
      wait: WAIT,
    },
    examples: [
      'tollgate decline ops-1234 --reason "Not during the freeze"',
      'tollgate decline --all --agent ops-agent --tool deleteRecord --run ops-1234',
    ],
    load: async () => (await import('./decide.js')).decline,
  },
  {
    name: 'hand-off',
    summary:
      'Hand a waiting approval to other approvers, with a note; the call keeps waiting for them (docs/hand-off.md).',
    args: ['runId'],
    options: {
      to: {
        type: 'string',
        value: '<id,role:x>',
        description: 'Who decides from now on: ids or role:<name>, comma-separated (required)',
      },
      note: { type: 'string', value: '<text>', description: 'Why; shown to the new approvers' },
      'tool-call': TOOL_CALL,
      ...DECIDER,
      wait: WAIT,
    },
    examples: ['tollgate hand-off ops-1234 --to role:dba --note "Needs a DBA: drops a table"'],
    load: async () => (await import('./hand-off.js')).handOff,
  },
  {
    name: 'resume',
    summary:
      "Resume a call its tool suspended, with data checked against the tool's resume schema.",
    args: ['runId'],
    options: {
      data: { type: 'string', value: '<json>', description: 'Resume data, as JSON' },
      elicitation: {
        type: 'string',
        value: 'decline|cancel',
        description: "Decline or cancel an MCP server's question instead of giving --data",
      },
      'tool-call': TOOL_CALL,
      ...DECIDER,
      wait: WAIT,
    },
    examples: [
      `tollgate resume weather-77 --data '{"city":"Paris"}'`,
      'tollgate resume pay-12 --elicitation decline',
    ],
    load: async () => (await import('./decide.js')).resume,
  },
  {
    name: 'doctor',
    summary:
      'Check that decisions can be applied: Temporal answers, and workers poll the task queue (exit 7 if none).',
    args: [],
    options: {
      probe: {
        type: 'boolean',
        description:
          "Also time a probe workflow (its own task queue, a worker in this process) and say which of the server's dynamic config to change",
      },
    },
    examples: [
      'tollgate doctor',
      'tollgate doctor --task-queue ops --json',
      'tollgate doctor --probe',
    ],
    load: async () => (await import('./doctor.js')).doctor,
  },
  {
    name: 'audit',
    summary:
      "Print a run's audit trail: gates, requests, decisions (who, when, channel), expiries, reminders.",
    args: ['runId'],
    options: {},
    examples: ['tollgate audit ops-1234', 'tollgate audit ops-1234 --json'],
    load: async () => (await import('./audit.js')).audit,
  },
];
