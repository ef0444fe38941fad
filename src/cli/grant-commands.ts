/** The grant commands of `tollgate` (docs/grants.md): give, list and revoke standing approvals. */
import type { CommandSpec, OptionSpec } from './command-spec.js';

const AS: Record<string, OptionSpec> = {
  as: {
    type: 'string',
    value: '<id>',
    description: 'Who grants or revokes (default: $USER@hostname); recorded with the grant',
  },
  roles: {
    type: 'string',
    value: '<a,b>',
    description: 'Roles of that identity, comma-separated (default: cli)',
  },
};

/** `approve --grant 4h`: the approval also gives a grant for the call's tool. */
export const GRANT_WITH_APPROVAL: Record<string, OptionSpec> = {
  grant: {
    type: 'string',
    value: '<duration>',
    description:
      "Also allow the call's tool without waiting for this long, e.g. 4h (docs/grants.md)",
  },
  'grant-scope': {
    type: 'string',
    value: '<thread|resource|run>',
    description:
      "With --grant: the run's memory thread or its whole resource (default: thread); run, alone: this run only",
  },
  'grant-args': {
    type: 'boolean',
    description: "With --grant: only calls with the approved call's arguments",
  },
  'no-release': {
    type: 'boolean',
    description:
      'With --grant: do not also approve the other waiting calls it covers (docs/grant-release.md)',
  },
};

export const GRANT_COMMANDS: CommandSpec[] = [
  {
    name: 'grant',
    summary:
      "Always allow an agent's tool (or every tool of one MCP server) on a thread or resource for a while: its calls there run without waiting.",
    args: ['agentId', 'toolName'],
    argsOptionalWith: 'mcp-server',
    options: {
      'mcp-server': {
        type: 'string',
        value: '<name>',
        description:
          'Instead of <toolName>: every tool the agent has from this MCP server, as pinned now',
      },
      resource: { type: 'string', value: '<id>', description: 'The resource (required)' },
      thread: {
        type: 'string',
        value: '<id>',
        description: 'Only this memory thread of the resource (default: every thread)',
      },
      for: {
        type: 'string',
        value: '<duration>',
        description: 'How long, e.g. 4h or 2d, at most 90 days (required)',
      },
      args: {
        type: 'string',
        value: '<json>',
        description: 'Only calls with exactly these arguments',
      },
      reason: { type: 'string', value: '<text>', description: 'Why (kept with the grant)' },
      ...AS,
    },
    examples: [
      'tollgate grant ops-agent deleteRecord --resource acme --thread t-42 --for 4h --as alice',
      `tollgate grant ops-agent restartService --resource acme --for 1d --args '{"service":"api"}'`,
      'tollgate grant ops-agent --mcp-server files --resource acme --for 4h',
    ],
    load: async () => (await import('./grants.js')).grant,
  },
  {
    name: 'grants',
    summary: 'List the live grants of the task queue.',
    args: [],
    options: {
      agent: { type: 'string', value: '<id>', description: 'Only grants of this agent' },
      resource: { type: 'string', value: '<id>', description: 'Only grants on this resource' },
      thread: { type: 'string', value: '<id>', description: 'Only grants on this thread' },
      tool: { type: 'string', value: '<name>', description: 'Only grants of this tool' },
    },
    examples: ['tollgate grants', 'tollgate grants --agent ops-agent --json'],
    load: async () => (await import('./grants.js')).grantsList,
  },
  {
    name: 'release-grant',
    summary:
      'Approve the calls waiting now that a live grant covers, in other runs of its thread or resource.',
    args: ['grantId'],
    options: {},
    examples: ['tollgate release-grant grant-3f2a…', 'tollgate release-grant grant-3f2a… --json'],
    load: async () => (await import('./grants.js')).releaseGrant,
  },
  {
    name: 'revoke-grant',
    summary: 'Revoke a grant: calls made from now on wait for a decision again.',
    args: ['grantId'],
    options: { ...AS },
    examples: ['tollgate revoke-grant grant-3f2a…'],
    load: async () => (await import('./grants.js')).revokeGrant,
  },
];
