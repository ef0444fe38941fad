import type { Client } from '@temporalio/client';
import {
  bundleWorkflowCode,
  Worker,
  type NativeConnection,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import type { AgentRegistry } from './activities/agent-registry.js';
import { createActivities } from './activities/index.js';
import {
  createRequestPolicyActivities,
  type RequestPolicyRegistry,
} from './activities/request-policy.js';
import type { ThreadSettings } from './activities/memory.js';
import type { ToolApprovalPolicy } from './definitions/agent.js';
import type { LiveBus } from './live/live-bus.js';

const WORKFLOWS_PATH = fileURLToPath(new URL('./workflows/index.js', import.meta.url));

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The workflow code, bundled once per process: every worker of the process shares it. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
  return bundle;
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string, meta?: unknown) => console.warn(message, meta ?? ''),
  error: (message: string, meta?: unknown) => console.error(message, meta ?? ''),
};

export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  agents: AgentRegistry;
  client: Client;
  bus: LiveBus;
  threads: ThreadSettings;
  policies: ReadonlyMap<string, ToolApprovalPolicy>;
}

/** The worker that runs `agentRun` and the agents' activities. */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const { client } = options;
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: await workflowBundle(),
    activities: createActivities({
      agents: options.agents,
      bus: options.bus,
      client,
      threads: options.threads,
      policies: options.policies,
    }),
  });
}

/** An activity-only worker that answers runs started here with a policy function. */
export function createPolicyWorker(options: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  policies: RequestPolicyRegistry;
}): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: createRequestPolicyActivities(options.policies),
  });
}
