/** The Worker Deployment commands of `tollgate` (docs/deploying.md). */
import type { CommandSpec, OptionSpec } from './command-spec.js';

/** `--deployment`, shared with `tollgate worker`. */
export const DEPLOYMENT_OPTION: OptionSpec = {
  type: 'string',
  value: '<name>',
  description:
    'Join this Temporal Worker Deployment (with --build-id and --versioning; docs/deploying.md)',
};

const ALLOW_DROPPED_AGENTS: OptionSpec = {
  type: 'boolean',
  description:
    'Switch even when the build lacks an agent whose open runs follow the current build (they would wait there for a host)',
};

export const DEPLOYMENT_COMMANDS: CommandSpec[] = [
  {
    name: 'deployments',
    summary:
      'Show the builds of the Worker Deployments serving the task queue: current, ramping or draining, their workers, the runs pinned to each, and whether it may be retired.',
    args: [],
    options: { deployment: DEPLOYMENT_OPTION },
    examples: ['tollgate deployments', 'tollgate deployments --deployment billing --json'],
    load: async () => (await import('./deployments.js')).deploymentsReport,
  },
  {
    name: 'deployments current',
    summary:
      'Make a build current: every new run starts on it, and auto-upgrade runs move to it at their next step.',
    args: ['build-id'],
    options: { deployment: DEPLOYMENT_OPTION, 'allow-dropped-agents': ALLOW_DROPPED_AGENTS },
    examples: ['tollgate deployments current 4f2c9e1 --deployment billing'],
    load: async () => (await import('./deployments.js')).deploymentsCurrent,
  },
  {
    name: 'deployments ramp',
    summary: 'Send a share of new runs to a build, the rest to the current one; 0 ends the ramp.',
    args: ['build-id', 'percent'],
    options: { deployment: DEPLOYMENT_OPTION, 'allow-dropped-agents': ALLOW_DROPPED_AGENTS },
    examples: ['tollgate deployments ramp 4f2c9e1 10 --deployment billing'],
    load: async () => (await import('./deployments.js')).deploymentsRamp,
  },
  {
    name: 'deployments retire',
    summary:
      'Take a build out of its deployment once no run is pinned to it and its workers have stopped.',
    args: ['build-id'],
    options: {
      deployment: DEPLOYMENT_OPTION,
      'retire-wait': {
        type: 'string',
        value: '<duration>',
        description:
          'While Temporal still sees the stopped workers (about 5 min), keep trying this long, e.g. 7m',
      },
    },
    examples: [
      'tollgate deployments retire 2b81d0a --deployment billing',
      'tollgate deployments retire 2b81d0a --deployment billing --retire-wait 7m',
    ],
    load: async () => (await import('./deployments.js')).deploymentsRetire,
  },
];
