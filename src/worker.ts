import type { Client } from '@temporalio/client';
import {
  Worker,
  type Logger,
  type NativeConnection,
  type WorkerDeploymentOptions,
  type WorkflowBundle,
} from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { Worker as Thread } from 'node:worker_threads';
import type { BundleAnswer, BundleRequest } from './bundle-thread.js';
import type { AgentRegistry } from './activities/agent-registry.js';
import type { CheckedChannels } from './channels/channel-options.js';
import { createActivities } from './activities/index.js';
import {
  createRequestPolicyActivities,
  type RequestPolicyRegistry,
} from './activities/request-policy.js';
import type { ThreadSettings } from './activities/memory.js';
import type { ToolApprovalPolicy } from './definitions/agent.js';
import type { LiveDeltaTransport } from './live/live-transport.js';
import { logRelay } from './live/log-relay.js';
import type { Tracing } from './telemetry/tracing.js';
import type { WorkerTuning } from './worker-settings.js';
import { agentTaskQueue } from './common/wire.js';
import { attachPinStore, type PinStore } from './mcp/mcp-pin-store.js';
import type { RunningWorker } from './running-worker.js';

const WORKFLOWS_PATH = fileURLToPath(new URL('./workflows/index.js', import.meta.url));
/** Always in the bundle: a run's updates are handled after the rest of its workflow task. */
const UPDATE_ORDER_MODULE = fileURLToPath(new URL('./workflows/update-order.js', import.meta.url));
const BUNDLE_THREAD = new URL('./bundle-thread.js', import.meta.url);

const bundles = new Map<string, Promise<WorkflowBundle>>();

/**
 * The workflow code, bundled once per process and set of interceptor modules: every worker of the
 * process shares it. The default bundle has the update-ordering interceptors only (tracing adds
 * its own after them). webpack runs in a thread of its own: the ~65 MiB it leaves behind in a
 * heap would otherwise stay in the worker process's RSS for its whole life.
 */
export function workflowBundle(
  options: { interceptorModules?: string[] } = {},
): Promise<WorkflowBundle> {
  const modules = [UPDATE_ORDER_MODULE, ...(options.interceptorModules ?? [])];
  const key = modules.join('\n');
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = bundleInThread({ workflowsPath: WORKFLOWS_PATH, interceptorModules: modules });
    bundles.set(key, bundle);
    // A failed bundling is not kept: the next worker tries again.
    bundle.catch(() => bundles.delete(key));
  }
  return bundle;
}

function bundleInThread(request: BundleRequest): Promise<WorkflowBundle> {
  return new Promise((resolve, reject) => {
    const thread = new Thread(BUNDLE_THREAD, { workerData: request });
    thread.once('message', (answer: BundleAnswer) => {
      if ('code' in answer) resolve({ code: answer.code });
      else reject(new Error(`Bundling the workflow code failed: ${answer.error}`));
      void thread.terminate();
    });
    thread.once('error', reject);
    thread.once('exit', (code) =>
      reject(new Error(`The workflow bundling thread exited (${code}) without a bundle.`)),
    );
  });
}

export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  agents: AgentRegistry;
  client: Client;
  bus: LiveDeltaTransport;
  threads: ThreadSettings;
  policies: ReadonlyMap<string, ToolApprovalPolicy>;
  /** OpenTelemetry interceptors and sinks; none when tracing is off. */
  tracing?: Tracing;
  /** Cache and concurrency limits, checked by `checkWorkerSettings`. */
  tuning?: WorkerTuning;
  /** How the worker shows among its task queue's pollers (the agent directory matches it). */
  identity: string;
  /** Webhooks that get the agents' waiting calls (docs/channels.md). */
  channels?: CheckedChannels;
  /** Where the agents' MCP tools keep their pins across deploys. */
  pins?: PinStore;
  /** The Worker Deployment version every worker of the process joins (docs/deploying.md). */
  deployment?: WorkerDeploymentOptions;
}

/**
 * The workers of a process hosting agents: one on the task queue, running `agentRun` (of any
 * agent) and the activities every worker can do, and one per hosted agent on the agent's own
 * queue (`agentTaskQueue`), running that agent's activities. The main worker also keeps the
 * agents' activities, for runs started before they were routed (patch `tollgate-agent-queues`).
 */
export async function createAgentWorkers(options: AgentWorkerOptions): Promise<Worker[]> {
  if (options.pins) attachPinStore(options.agents.tools(), options.pins);
  const { tracing } = options;
  // The code the main worker runs is the code a replay check before a move replays with.
  const bundle = () =>
    workflowBundle(tracing ? { interceptorModules: tracing.workflowInterceptorModules } : {});
  const activities = createActivities({
    agents: options.agents,
    bus: options.bus,
    client: options.client,
    threads: options.threads,
    policies: options.policies,
    ...(options.channels ? { channels: options.channels } : {}),
    workflowBundle: bundle,
    taskQueue: options.taskQueue,
  });
  const main = await createMainWorker(options, activities, await bundle());
  const { maxConcurrentActivityTaskExecutions, shutdownGraceTime } = options.tuning ?? {};
  const perAgent = await Promise.all(
    options.agents.ids().map((agentId) =>
      Worker.create({
        ...(maxConcurrentActivityTaskExecutions !== undefined
          ? { maxConcurrentActivityTaskExecutions }
          : {}),
        ...(shutdownGraceTime !== undefined ? { shutdownGraceTime } : {}),
        connection: options.connection,
        namespace: options.namespace,
        taskQueue: agentTaskQueue(options.taskQueue, agentId),
        identity: options.identity,
        ...(options.deployment ? { workerDeploymentOptions: options.deployment } : {}),
        activities,
        ...(options.tracing ? { interceptors: options.tracing.workerInterceptors } : {}),
      }),
    ),
  );
  return [main, ...perAgent.map(quietAboutWorkflows)];
}

const NO_WORKFLOWS = 'No workflows registered, not polling for workflow tasks';

/**
 * An agent's activity worker polls no workflow tasks, which is what it is for, yet the SDK warns
 * about it once per worker at start: that one message is left out of its log. The logger is a
 * private field of the SDK's worker; the SDK is pinned to one release (workflow-sdk-check.ts), and
 * on another shape the worker is left as it is.
 */
function quietAboutWorkflows(worker: Worker): Worker {
  const holder = worker as unknown as { logger?: Logger };
  const logger = holder.logger;
  if (!logger || typeof logger.warn !== 'function') return worker;
  const quiet = Object.create(logger) as Logger;
  quiet.warn = (message, meta) => {
    if (message !== NO_WORKFLOWS) logger.warn(message, meta);
  };
  holder.logger = quiet;
  return worker;
}

async function createMainWorker(
  options: AgentWorkerOptions,
  activities: ReturnType<typeof createActivities>,
  bundle: WorkflowBundle,
): Promise<Worker> {
  const { tracing } = options;
  return Worker.create({
    ...options.tuning,
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    identity: options.identity,
    ...(options.deployment ? { workerDeploymentOptions: options.deployment } : {}),
    workflowBundle: bundle,
    ...(tracing ? { interceptors: tracing.workerInterceptors } : {}),
    sinks: { ...tracing?.sinks, ...logRelay.sinks() },
    activities,
  });
}

/**
 * Starts an activity-only worker that answers runs started here with a policy function; its
 * stopping on its own is logged, not thrown.
 */
export async function runPolicyWorker(options: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  policies: RequestPolicyRegistry;
  tracing?: Tracing | undefined;
}): Promise<RunningWorker> {
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: createRequestPolicyActivities(options.policies),
    ...(options.tracing ? { interceptors: options.tracing.workerInterceptors } : {}),
  });
  const running = worker.run();
  running.catch((error: unknown) => console.error('[tollgate] policy worker stopped:', error));
  return { worker, running };
}
