import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { AgentRegistry } from './activities/agent-registry.js';
import { DEFAULT_THREAD_SETTINGS } from './activities/memory.js';
import { RequestPolicyRegistry } from './activities/request-policy.js';
import { checkChannels, type CheckedChannels } from './channels/channel-options.js';
import type { BatchDecision, BatchDecisionResult } from './common/batch-decisions.js';
import type { AgentListing } from './common/directory-types.js';
import { TollgateError } from './common/errors.js';
import { checkScope, type Scope } from './common/scope.js';
import { DEFAULT_ADDRESS, DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE } from './common/wire.js';
import { openLiveTransport } from './live/live-options.js';
import type { LiveDeltaTransport } from './live/live-transport.js';
import { stopWorkers, workerStoppedByItself, type RunningWorker } from './running-worker.js';
import type { GetAgentOptions, TollgateOptions } from './runtime-options.js';
import { checkChoice } from './runtime-options.js';
import type { Tracing } from './telemetry/tracing.js';
import { TemporalConnections } from './temporal-connections.js';
import { AgentClient } from './temporal-client/agent-client.js';
import { AgentDirectory } from './temporal-client/agent-directory.js';
import { decideMany, explainError, type DecideManyOptions } from './temporal-client/decide-many.js';
import {
  checkDecisionSettings,
  type CheckedDecisionSettings,
} from './temporal-client/decision-settings.js';
import { checkId } from './temporal-client/run-options.js';
import { Deployments } from './temporal-client/deployments.js';
import { GrantRegistry } from './temporal-client/grants.js';
import { LivePolicies } from './temporal-client/live-policies.js';
import { McpPinRegistry } from './temporal-client/mcp-pins.js';
import { RunFactsCache } from './temporal-client/run-facts.js';
import { WorkerAvailability } from './temporal-client/worker-availability.js';
import { countPollers, type TaskQueuePollers } from './temporal-client/worker-pollers.js';
import { createAgentWorkers, runPolicyWorker } from './worker.js';
import { checkWorkflowSdk } from './workflow-sdk-check.js';
import { checkWorkerSettings, type CheckedWorkerSettings } from './worker-settings.js';

export type { GetAgentOptions, TemporalOptions, TollgateOptions } from './runtime-options.js';

/** Connects agents to Temporal: hosts their runs (`startWorker`) and steers runs by agent id (`getAgent`). */
export class Tollgate {
  readonly address: string;
  readonly namespace: string;
  readonly taskQueue: string;
  private readonly agents: AgentRegistry;
  private readonly policies = new RequestPolicyRegistry();
  private readonly policyQueue = `${DEFAULT_TASK_QUEUE}-policy-${randomUUID()}`;
  /** Unique per runtime, so the directory tells this worker's polls from another's. */
  private readonly workerIdentity = `${process.pid}@${hostname()}/${randomUUID().slice(0, 8)}`;
  private readonly directory: AgentDirectory;
  /** Standing approvals (docs/grants.md) and live approval rules (docs/live-policies.md). */
  readonly grants: GrantRegistry;
  readonly livePolicies: LivePolicies;
  /** The MCP pins kept across deploys (docs/mcp.md "Pins across deploys"); re-pin through it. */
  readonly mcpPins: McpPinRegistry;
  /** The Worker Deployments serving this task queue (docs/deploying.md): report, roll, retire. */
  readonly deployments: Deployments;
  private readonly connections: TemporalConnections;
  /** The workflow worker first, then one activity worker per hosted agent (`createAgentWorkers`). */
  private agentWorkers: RunningWorker[] | undefined;
  private policyWorker: Promise<RunningWorker> | undefined;
  private closed = false;
  private readonly lifetime = new AbortController();
  /** Loaded only when tracing is on, so a process without it never loads OpenTelemetry. */
  private readonly tracing: Promise<Tracing> | undefined;
  private readonly workerSettings: CheckedWorkerSettings;
  private readonly decisionSettings: CheckedDecisionSettings;
  private readonly workers: WorkerAvailability;
  /** What never changes about the runs this runtime started or described (`RunFactsCache`). */
  private readonly runFacts = new RunFactsCache();
  private readonly live: { transport: LiveDeltaTransport; owned: boolean };
  private readonly channels: CheckedChannels | undefined;

  constructor(private readonly options: TollgateOptions = {}) {
    this.agents = new AgentRegistry(Object.values(options.agents ?? {}));
    this.workerSettings = checkWorkerSettings(options.worker);
    this.decisionSettings = checkDecisionSettings(options.decisions);
    this.channels = options.channels ? checkChannels(options.channels) : undefined;
    checkChoice('patchMarkers', options.patchMarkers, ['each', 'one']);
    checkChoice('follow', options.follow, ['history', 'update']);
    const seenWithin = this.decisionSettings.workerSeenWithinMs;
    this.workers = new WorkerAvailability(seenWithin);
    this.address = options.temporal?.address ?? process.env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS;
    this.namespace =
      options.temporal?.namespace ?? process.env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE;
    this.taskQueue = options.temporal?.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.live = openLiveTransport(options.liveDeltas, this.namespace);
    // Not client(): shutdown() withdraws through it after the runtime is marked closed.
    const client = () => this.connections.client();
    this.directory = new AgentDirectory(client, this.taskQueue, seenWithin);
    const pollers = async () => (await this.workerPollers()).pollers;
    const agentOf = (id: string, scope?: Scope) => this.getAgent(id, scope ? { scope } : {});
    this.grants = new GrantRegistry(client, this.taskQueue, this.directory, pollers, agentOf);
    this.livePolicies = new LivePolicies(client, this.taskQueue, this.directory, pollers);
    this.mcpPins = new McpPinRegistry(client, this.taskQueue, pollers);
    this.deployments = new Deployments(client, this.taskQueue, seenWithin);
    const telemetry = options.telemetry;
    this.tracing = telemetry
      ? import('./telemetry/tracing.js').then((m) => m.createTracing(telemetry))
      : undefined;
    // Bad options surface from startWorker() and client(), not as an unhandled rejection.
    this.tracing?.catch(() => undefined);
    this.connections = new TemporalConnections(this.address, this.namespace, this.tracing);
  }

  /**
   * Starts the worker that runs this process's agents and publishes them in the agent directory
   * (see `listAgents()`); resolves once it polls. While Temporal
   * cannot be reached it keeps trying for `worker.connectTimeout`, then rejects with
   * `TEMPORAL_UNAVAILABLE`.
   */
  async startWorker(): Promise<void> {
    this.assertOpen();
    if (this.agentWorkers) return;
    if (this.agents.size === 0) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        'startWorker() needs agents: pass them as new Tollgate({ agents }).',
      );
    }
    await checkWorkflowSdk();
    const { client, native } = await this.connections.reach(
      this.workerSettings.connectTimeoutMs,
      () => this.closed,
      () => this.assertOpen(),
    );
    await this.live.transport.open?.('publish');
    const { deployment } = this.workerSettings;
    const workers = await createAgentWorkers({
      connection: native,
      namespace: this.namespace,
      taskQueue: this.taskQueue,
      agents: this.agents,
      client,
      bus: this.live.transport,
      threads: { ...DEFAULT_THREAD_SETTINGS, ...this.options.threads },
      policies: new Map(Object.entries(this.options.policies ?? {})),
      tracing: await this.tracing,
      tuning: this.workerSettings.tuning,
      identity: this.workerIdentity,
      pins: this.mcpPins,
      ...(this.channels ? { channels: this.channels } : {}),
      ...(deployment ? { deployment } : {}),
    });
    this.agentWorkers = workers.map((worker) => ({ worker, running: worker.run() }));
    for (const { running } of this.agentWorkers)
      running.catch((error: unknown) => console.error('[tollgate] agent worker stopped:', error));
    if (deployment) {
      const { deploymentName, buildId } = deployment.version;
      await this.deployments.adoptIfNone(deploymentName, buildId, this.workerIdentity);
    }
    await this.directory.publish(this.agents.descriptions(), this.workerIdentity);
  }

  /**
   * The agents published on this runtime's task queue by the workers that host them, read from
   * Temporal alone (no worker needs to run), with whether a worker that hosts each polls now.
   */
  listAgents(): Promise<AgentListing[]> {
    this.assertOpen();
    return this.directory.list();
  }

  /**
   * Takes an agent out of the directory of this task queue: its runs are refused with
   * `AGENT_NOT_FOUND` until a worker hosting it starts again. Runs already started go on.
   *
   * @throws TollgateError `AGENT_NOT_FOUND` when the directory does not list it.
   */
  removeAgent(agentId: string): Promise<void> {
    this.assertOpen();
    return this.directory.remove(agentId);
  }

  /**
   * Resolves when the agent worker has stopped after `shutdown()`; rejects with `WORKER_STOPPED`
   * (the cause attached) when it stops by itself, e.g. its namespace was deleted. A supervisor
   * awaits it to restart or exit the process instead of living on with a worker that polls
   * nothing. Rejects with `INVALID_OPTIONS` before `startWorker()`.
   */
  async workerStopped(): Promise<void> {
    const main = this.agentWorkers?.[0];
    if (!main) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        'workerStopped() needs a started worker: call startWorker() first.',
      );
    }
    await workerStoppedByItself(main, () => this.closed, this.taskQueue);
  }

  /**
   * A handle on the agent's runs. The agent's code need not live in this process. With
   * `options.scope`, the handle does only what the scope allows (docs/http-api.md "Scopes"), as
   * the HTTP server does for a scoped token: an app can serve tenants in-process.
   */
  getAgent(agentId: string, options?: GetAgentOptions): AgentClient {
    this.assertOpen();
    if (typeof agentId !== 'string' || agentId === '') {
      throw new TollgateError('INVALID_OPTIONS', 'getAgent() needs an agent id.');
    }
    checkId(agentId, 'agentId');
    const scope =
      options?.scope === undefined ? undefined : checkScope(options.scope, 'getAgent() scope');
    return new AgentClient(
      agentId,
      {
        // The first stream of a process subscribes on an open connection, missing no delta.
        client: async () => {
          await this.live.transport.open?.('subscribe');
          return this.client();
        },
        taskQueue: this.taskQueue,
        bus: this.live.transport,
        lifetime: this.lifetime.signal,
        requireAgent: (id) => this.directory.require(id),
        describeAgent: (id) => this.directory.description(id),
        grants: this.grants,
        holdPolicy: async (runId, policy) => {
          this.policies.register(runId, policy);
          await this.startPolicyWorker();
          return this.policyQueue;
        },
        releasePolicy: (runId) => this.policies.forget(runId),
        decisions: this.decisionSettings,
        workers: this.workers,
        runs: this.runFacts,
        oneMarker: this.options.patchMarkers === 'one',
        follow: this.options.follow,
        describesLocally: (id) => this.agents.doesLocalWork(id),
      },
      scope,
      options?.identity,
    );
  }

  /**
   * Decides many waiting calls in one call (docs/batch-decisions.md). Each is judged by its run
   * as if sent alone (scope, approvers, fingerprint, expiry): one refused call never stops the
   * others. Answers one result per decision, in order, `{ ok: true, decision }` or
   * `{ ok: false, error: { code, message } }`. At most 100 decisions (`INVALID_OPTIONS`).
   */
  async decideMany(
    decisions: BatchDecision[],
    options: DecideManyOptions & GetAgentOptions = {},
  ): Promise<BatchDecisionResult[]> {
    this.assertOpen();
    const agentOf = (id: string) => this.getAgent(id, options.scope && { scope: options.scope });
    return decideMany(agentOf, decisions, options, explainError);
  }

  /**
   * Workers Temporal saw poll `taskQueue` (default: this runtime's) for workflow tasks within
   * `decisions.workerSeenWithin`. With none, decisions answer `WORKER_UNAVAILABLE`.
   */
  async workerPollers(taskQueue = this.taskQueue): Promise<TaskQueuePollers> {
    return countPollers(await this.client(), taskQueue, this.decisionSettings.workerSeenWithinMs);
  }

  /** Stops the workers (letting running activities finish) and closes connections. Runs go on. */
  async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lifetime.abort();
    // While the worker still runs, so it can apply the withdrawal itself.
    if (this.agentWorkers?.[0]?.worker.getState() === 'RUNNING') {
      await this.directory.withdraw(this.agents.ids(), this.workerIdentity).catch(() => undefined);
    }
    const policyWorker = await this.policyWorker?.catch(() => undefined);
    const workers = [...(this.agentWorkers ?? []), ...(policyWorker ? [policyWorker] : [])];
    await stopWorkers(workers, () => this.connections.openedNative());
    await this.connections.closeClient();
    await (await this.tracing?.catch(() => undefined))?.shutdown();
    if (this.live.owned) await this.live.transport.close();
  }

  /** The Temporal client of this runtime, connected on first use. */
  client(): Promise<Client> {
    this.assertOpen();
    return this.connections.client();
  }

  private startPolicyWorker(): Promise<RunningWorker> {
    this.policyWorker ??= (async () =>
      runPolicyWorker({
        connection: await this.connections.native(),
        namespace: this.namespace,
        taskQueue: this.policyQueue,
        policies: this.policies,
        tracing: await this.tracing,
      }))();
    return this.policyWorker;
  }

  private assertOpen(): void {
    if (this.closed)
      throw new TollgateError('INVALID_OPTIONS', 'This Tollgate was shut down; create a new one.');
  }
}
