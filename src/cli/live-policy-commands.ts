/** The live policy commands of `tollgate` (docs/live-policies.md): change and list live rules. */
import type { CommandSpec } from './command-spec.js';

export const LIVE_POLICY_COMMANDS: CommandSpec[] = [
  {
    name: 'live-policy',
    summary:
      "Change whether an agent's tool waits for approval, for its waiting calls, open runs and new runs.",
    args: ['agentId', 'toolName'],
    options: {
      approval: {
        type: 'string',
        value: '<required|not-required|as-coded>',
        description:
          'not-required releases the calls waiting now; required gates calls not yet made; as-coded drops the rule (required)',
      },
      reason: { type: 'string', value: '<text>', description: 'Why (kept with the rule)' },
      as: {
        type: 'string',
        value: '<id>',
        description: 'Who changes it (default: $USER@hostname); recorded in the audit',
      },
      roles: {
        type: 'string',
        value: '<a,b>',
        description: 'Roles of that identity, comma-separated (default: cli)',
      },
    },
    examples: [
      'tollgate live-policy ops-agent restartService --approval not-required --reason "incident over"',
      'tollgate live-policy ops-agent deleteRecord --approval as-coded',
    ],
    load: async () => (await import('./live-policies.js')).livePolicy,
  },
  {
    name: 'live-policies',
    summary: 'List the live approval rules in force on the task queue.',
    args: [],
    options: { agent: { type: 'string', value: '<id>', description: 'Only rules of this agent' } },
    examples: ['tollgate live-policies', 'tollgate live-policies --agent ops-agent --json'],
    load: async () => (await import('./live-policies.js')).livePoliciesList,
  },
];
