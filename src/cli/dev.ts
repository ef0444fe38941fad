/**
 * `tollgate dev`: everything on one machine for trying agents out. A Temporal dev server (state
 * in a SQLite file), a worker hosting the agents, and the HTTP API with the inbox; Ctrl-C stops
 * them in reverse order.
 */
import type { Agent } from '../definitions/agent.js';
import { startDevServer, type DevServer } from '../devserver/index.js';
import type { Tollgate } from '../runtime.js';
import {
  integerOption,
  stringOption,
  UsageError,
  type CommandHandler,
  type CommandInput,
} from './command-input.js';
import { decidedByFrom, openTollgate } from './connect.js';
import { EXIT } from './exit-codes.js';
import { startHttpHost, type HttpHost } from './http-host.js';
import { loadAgents, loadDemoAgents } from './load-agents.js';
import { DEFAULT_HTTP_PORT } from './serve.js';
import { quietWorkerLogs, untilStopped } from './until-stopped.js';

/** The temporal CLI's own default ports, so other terminals find the server without flags. */
const DEFAULT_TEMPORAL_PORT = 7233;
const UI_PORT_OFFSET = 1000;
const DEFAULT_DB = '.tollgate/dev.db';

export const dev: CommandHandler = async (input) => {
  const { output } = input;
  if (input.global.address !== undefined) {
    throw new UsageError(
      'dev starts its own Temporal server; choose its port with --temporal-port.',
    );
  }
  const port = integerOption(input, 'port', DEFAULT_HTTP_PORT, { min: 0, max: 65535 });
  const temporalPort = integerOption(input, 'temporal-port', DEFAULT_TEMPORAL_PORT, {
    min: 1,
    max: 65535 - UI_PORT_OFFSET,
  });
  const modulePath = stringOption(input, 'agents');
  const loaded = modulePath
    ? { agents: await loadAgents(modulePath), note: modulePath }
    : await loadDemoAgents();
  await quietWorkerLogs();

  let server: DevServer | undefined;
  let tollgate: Tollgate | undefined;
  let http: HttpHost | undefined;
  try {
    output.progress('Starting the Temporal dev server…');
    server = await startDevServer({
      port: temporalPort,
      uiPort: temporalPort + UI_PORT_OFFSET,
      dbFile: stringOption(input, 'db') ?? DEFAULT_DB,
      tuned: input.options['temporal-defaults'] !== true,
      ...(input.global.namespace !== undefined ? { namespace: input.global.namespace } : {}),
    });
    output.progress('Starting the worker…');
    tollgate = openTollgate({ ...input.global, address: server.address }, loaded.agents);
    await tollgate.startWorker();
    output.progress('Starting the HTTP API…');
    http = await startHttpHost(tollgate, httpOptions(input, port));
    printReady(input, server, tollgate, http, loaded);
    const signal = await untilStopped();
    output.line(`${signal}: shutting down…`);
  } finally {
    output.stopProgress();
    await http?.close();
    await tollgate?.shutdown();
    await server?.stop();
  }
  return EXIT.ok;
};

function httpOptions(input: CommandInput, port: number) {
  const tokensFile = stringOption(input, 'tokens-file');
  const inboxDir = stringOption(input, 'inbox');
  return {
    port,
    devIdentity: decidedByFrom(undefined, undefined).id,
    ...(tokensFile !== undefined ? { tokensFile } : {}),
    ...(inboxDir !== undefined ? { inboxDir } : {}),
  };
}

function printReady(
  { output }: CommandInput,
  server: DevServer,
  tollgate: Tollgate,
  http: HttpHost,
  { agents, note }: { agents: Record<string, Agent>; note: string },
): void {
  const agentIds = Object.values(agents).map((agent) => agent.id);
  output.document({
    type: 'ready',
    temporal: {
      address: server.address,
      namespace: server.namespace,
      ui: server.uiUrl,
      db: server.dbFile,
      dynamicConfig: server.dynamicConfig,
    },
    worker: { taskQueue: tollgate.taskQueue, agents: agentIds },
    api: http.apiUrl,
    inbox: http.inboxUrl ?? null,
    token: http.devToken ?? null,
  });
  const rows: Array<[string, string]> = [
    ['Temporal', `${server.address} (state in ${server.dbFile}; ${settingsNote(server)})`],
    ['Temporal UI', `${server.uiUrl}/namespaces/${server.namespace}/workflows`],
    ['API', http.apiUrl],
    ['Inbox', http.inboxUrl ?? '(none: pass --inbox <dir>)'],
    ['Worker', `${agentIds.join(', ')} on task queue '${tollgate.taskQueue}' (${note})`],
  ];
  if (http.devToken) rows.push(['API token', `${http.devToken} (this session only)`]);
  for (const [label, value] of rows) output.line(`${label.padEnd(12)} ${value}`);
  const first = agentIds[0] ?? 'ops-agent';
  output.line(`
Start a run:
  curl -N -H "Authorization: Bearer ${http.devToken ?? '<token>'}" -H 'Content-Type: application/json' \\
    -d '{"messages":"Delete the stale record rec-42"}' ${http.apiUrl}/agents/${first}/stream
Then, from another terminal:
  export TEMPORAL_ADDRESS=${server.address}
  tollgate runs pending

Ctrl-C stops everything (the state stays in ${server.dbFile}).`);
}

function settingsNote(server: DevServer): string {
  const settings = Object.entries(server.dynamicConfig).map(([key, value]) => `${key}=${value}`);
  return settings.length > 0
    ? `tuned: ${settings.join(', ')}`
    : "Temporal's default dynamic config (--temporal-defaults)";
}
