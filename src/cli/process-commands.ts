/**
 * The commands that start long-lived processes: `dev`, `worker` and `serve`. Each command's code
 * is loaded only when it runs.
 */
import type { CommandSpec, OptionSpec } from './command-spec.js';
import { DEPLOYMENT_OPTION } from './deployment-commands.js';

const INBOX: OptionSpec = {
  type: 'string',
  value: '<dir>',
  description: "Directory of the inbox page (index.html) (default: the package's inbox, if any)",
};

const PORT: OptionSpec = {
  type: 'string',
  value: '<port>',
  description: 'Port of the HTTP API and inbox (default: 8787)',
};

export const PROCESS_COMMANDS: CommandSpec[] = [
  {
    name: 'dev',
    summary:
      'Start a local Temporal dev server, a worker for your agents, the HTTP API and the inbox; Ctrl-C stops all of it.',
    args: [],
    options: {
      agents: {
        type: 'string',
        value: '<module>',
        description:
          "Module exporting `agents` (or a default export) (default: the demo's ops-agent)",
      },
      port: PORT,
      'temporal-port': {
        type: 'string',
        value: '<port>',
        description:
          'Port of the Temporal dev server; its Web UI is on port + 1000 (default: 7233)',
      },
      db: {
        type: 'string',
        value: '<file>',
        description: "SQLite file of the dev server's state (default: .tollgate/dev.db)",
      },
      'tokens-file': {
        type: 'string',
        value: '<file>',
        description:
          'API tokens file (default: $TOLLGATE_TOKENS_FILE, $TOLLGATE_TOKENS, or a one-off dev token)',
      },
      inbox: INBOX,
      'temporal-defaults': {
        type: 'boolean',
        description:
          "Start the dev server with Temporal's own dynamic config instead of the tuned one (docs/performance.md)",
      },
    },
    examples: [
      'tollgate dev',
      'tollgate dev --agents ./dist/agents.js --port 3000',
      'tollgate dev --temporal-defaults',
    ],
    load: async () => (await import('./dev.js')).dev,
  },
  {
    name: 'worker',
    summary: 'Host the agents of a module: run their workflows and activities against Temporal.',
    args: [],
    options: {
      agents: {
        type: 'string',
        value: '<module>',
        description:
          'Module exporting `agents` (Record<string, Agent>) or a default export of that shape',
      },
      'connect-timeout': {
        type: 'string',
        value: '<duration>',
        description:
          'Keep trying to reach Temporal this long at start, e.g. 2m (default: fail at once)',
      },
      'max-cached-workflows': {
        type: 'string',
        value: '<n>',
        description:
          "Runs kept in the worker's memory between steps; bounds its memory (default: Temporal's)",
      },
      deployment: DEPLOYMENT_OPTION,
      'build-id': {
        type: 'string',
        value: '<id>',
        description: 'This release of the deployment, e.g. a commit id',
      },
      versioning: {
        type: 'string',
        value: '<pinned|auto-upgrade>',
        description:
          'pinned: a run ends on the build it started on; auto-upgrade: it moves to the current build',
      },
    },
    examples: [
      'tollgate worker --agents ./dist/agents.js --address temporal.internal:7233',
      'tollgate worker --agents ./dist/agents.js --deployment billing --build-id 4f2c9e1 --versioning pinned',
      'tollgate worker --agents ./dist/agents.js --connect-timeout 2m --max-cached-workflows 500',
      'TOLLGATE_LIVE_REDIS_URL=redis://redis.internal:6379 tollgate worker --agents ./dist/agents.js',
    ],
    load: async () => (await import('./worker.js')).worker,
  },
  {
    name: 'serve',
    summary: 'Serve the HTTP API and the approval inbox (no agents run here).',
    args: [],
    options: {
      port: PORT,
      host: {
        type: 'string',
        value: '<hostname>',
        description: 'Interface to listen on (default: the server default)',
      },
      'tokens-file': {
        type: 'string',
        value: '<file>',
        description: 'API tokens file (default: $TOLLGATE_TOKENS_FILE or $TOLLGATE_TOKENS)',
      },
      inbox: INBOX,
      'slack-users': {
        type: 'string',
        value: '<file>',
        description:
          'Serve /slack/actions: JSON of Slack user id → { id, roles } (default: $TOLLGATE_SLACK_USERS_FILE; docs/slack.md)',
      },
    },
    examples: [
      'TOLLGATE_TOKENS_FILE=tokens.json tollgate serve --port 8787',
      'TOLLGATE_SLACK_SIGNING_SECRET=… TOLLGATE_SLACK_BOT_TOKEN=xoxb-… tollgate serve --slack-users slack-users.json',
      'TOLLGATE_LIVE_REDIS_URL=redis://redis.internal:6379 tollgate serve',
    ],
    load: async () => (await import('./serve.js')).serve,
  },
];
