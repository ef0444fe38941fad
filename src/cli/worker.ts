/**
 * `tollgate worker --agents <module>`: hosts the module's agents against an existing Temporal
 * (`--address`, `--namespace`, `--task-queue`) until Ctrl-C, or until the worker stops by itself
 * (exit 1, so a supervisor restarts it).
 */
import type { Versioning, WorkerSettings } from '../worker-settings.js';
import { integerOption, stringOption, UsageError, type CommandHandler } from './command-input.js';
import { openTollgate } from './connect.js';
import { EXIT } from './exit-codes.js';
import { loadAgents } from './load-agents.js';
import { quietWorkerLogs, untilStopped } from './until-stopped.js';

export const worker: CommandHandler = async (input) => {
  const { output } = input;
  const modulePath = stringOption(input, 'agents');
  if (modulePath === undefined) {
    throw new UsageError('worker needs --agents <module>: a module exporting `agents`.');
  }
  const agents = await loadAgents(modulePath);
  await quietWorkerLogs();
  const settings: WorkerSettings = {};
  const connectTimeout = stringOption(input, 'connect-timeout');
  if (connectTimeout !== undefined) settings.connectTimeout = connectTimeout;
  if (stringOption(input, 'max-cached-workflows') !== undefined) {
    const range = { min: 0, max: 1_000_000 };
    settings.maxCachedWorkflows = integerOption(input, 'max-cached-workflows', 0, range);
  }
  const deployment = stringOption(input, 'deployment');
  const buildId = stringOption(input, 'build-id');
  const versioning = stringOption(input, 'versioning');
  if (deployment !== undefined || buildId !== undefined || versioning !== undefined) {
    if (deployment === undefined || buildId === undefined) {
      throw new UsageError('--deployment and --build-id go together (with --versioning).');
    }
    settings.deployment = { name: deployment, buildId };
    // Checked, with the other settings, by new Tollgate(): INVALID_OPTIONS names the value.
    if (versioning !== undefined) settings.versioning = versioning as Versioning;
  }
  const tollgate = openTollgate(input.global, agents, settings);
  try {
    output.progress(`Starting the worker on ${tollgate.address}…`);
    await tollgate.startWorker();
    const agentIds = Object.values(agents).map((agent) => agent.id);
    const { address, namespace, taskQueue } = tollgate;
    const release = settings.deployment
      ? { deployment: settings.deployment, versioning: settings.versioning }
      : {};
    output.document({
      type: 'ready',
      worker: { address, namespace, taskQueue, agents: agentIds, ...release },
    });
    const build = settings.deployment
      ? `, build ${settings.deployment.buildId} of deployment ${settings.deployment.name} (${settings.versioning})`
      : '';
    output.line(
      `Worker hosting ${agentIds.join(', ')} on task queue '${taskQueue}' at ${address} (namespace ${namespace})${build}.`,
    );
    output.line('Ctrl-C stops it; waiting runs stay parked in Temporal.');
    const workerEnded = new AbortController();
    const failure = tollgate.workerStopped().then(
      () => undefined,
      (error: unknown) => error,
    );
    void failure.then(() => workerEnded.abort());
    const signal = await untilStopped(workerEnded.signal);
    if (signal === undefined) throw await failure;
    output.line(`${signal}: stopping the worker (running activities finish first)…`);
  } finally {
    output.stopProgress();
    await tollgate.shutdown();
  }
  return EXIT.ok;
};
