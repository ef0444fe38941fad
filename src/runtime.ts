import { Client, type Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { AgentRegistry } from './activities/agent-registry.js';
import { DEFAULT_THREAD_SETTINGS, type ThreadSettings } from './activities/memory.js';
import { RequestPolicyRegistry } from './activities/request-policy.js';
import { AgentClient } from './client/agent-client.js';
import {
  checkDecisionSettings,
  type CheckedDecisionSettings,
  type DecisionSettings,
} from './client/decision-settings.js';
import { AgentDirectory } from './client/agent-directory.js';
import { GrantRegistry } from './client/grants.js';
import { isTemporalUnreachable } from './client/errors.js';
import { connectClosable, type ClosableConnection } from './client/connection.js';
import { checkId } from './client/run-options.js';
import {
  checkChannels,
  type ChannelsOptions,
  type CheckedChannels,
} from './channels/channel-options.js';
import { decideMany, explainError, type DecideManyOptions } from './client/decide-many.js';
import type { BatchDecision, BatchDecisionResult } from './common/batch-decisions.js';
import { ensureSearchAttributes } from './client/search-attributes.js';
import {
  countPollers,
  WorkerAvailability,
  type TaskQueuePollers,
} from './client/worker-pollers.js';
import type { AgentListing } from './common/directory-types.js';
import { TollgateError } from './common/errors.js';
import { checkScope, type Scope } from './common/scope.js';
import { DEFAULT_ADDRESS, DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE } from './common/wire.js';
import type { Agent, ToolApprovalPolicy } from './definitions/agent.js';
import { openLiveTransport, type LiveDeltaOptions } from './live/live-options.js';
import type { LiveDeltaTransport } from './live/live-transport.js';
import type { Tracing, TracingOptions } from './telemetry/tracing.js';
import { workerEnd, type RunningWorker } from './running-worker.js';
import { createAgentWorker, createPolicyWorker } from './worker.js';
import { checkWorkflowSdk } from './workflow-sdk-check.js';
import {
  checkWorkerSettings,
  type CheckedWorkerSettings,
  type WorkerSettings,
} from './worker-settings.js';

export interface TemporalOptions {
  /** Frontend address. Default `TEMPORAL_ADDRESS` or `localhost:7233`. */
  address?: string;
  /** Default `TEMPORAL_NAMESPACE` or `default`. */
  namespace?: string;
  /** Task queue of agent runs. Default `tollgate`. */
  taskQueue?: string;
}

export interface TollgateOptions {
  /** Agents this process hosts; omit in a process that only starts and steers runs. */
  agents?: Record<string, Agent>;
  temporal?: TemporalOptions;
  /** How memory threads are kept by this worker (see `ThreadSettings`). */
  threads?: Partial<ThreadSettings>;
  /**
   * Approval policies by name, for requests that cannot ship a function (HTTP, other languages):
   * `requireToolApproval: 'name'`. An unknown name gates every call.
   */
  policies?: Record<string, ToolApprovalPolicy>;
  /**
   * OpenTelemetry tracing of runs, model steps and tool calls (spans of one run share a trace):
   * `{ exporter }`, e.g. an OTLP exporter. Off by default; when off, nothing is installed.
   */
  telemetry?: TracingOptions;
  /** Cache, concurrency and time limits of the agent worker (see `WorkerSettings`). */
  worker?: WorkerSettings;
  /** How long decisions wait for their run, and their deadline (see `DecisionSettings`). */
  decisions?: DecisionSettings;
  /**
   * How live text deltas reach streams in other processes: `{ redis: { url } }` (see
   * `LiveDeltaOptions`, docs/live-tokens.md). Set it alike on workers and API servers. Default:
   * env `TOLLGATE_LIVE_REDIS_URL` if set, else live text reaches streams of this process only.
   */
  liveDeltas?: LiveDeltaOptions;
  /**
   * Webhooks (Slack, or generic JSON) that get this worker's waiting calls, with signed
   * Approve / Decline links (README "Chat channels", docs/channels.md).
   */
  channels?: ChannelsOptions;
}

/** Options of `Tollgate.getAgent`. */
export interface GetAgentOptions {
  /** Limits of the caller the handle acts for; without it, the handle may do everything. */
  scope?: Scope;
}

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
  /**
   * Standing approvals of this task queue (docs/grants.md): `create`, `list`, `revoke`, each held
   * to the caller's `{ scope, identity }`.
   */
  readonly grants: GrantRegistry;
  private clientPromise: Promise<Client> | undefined;
  private clientConnection: Promise<ClosableConnection> | undefined;
  private nativeConnection: Promise<NativeConnection> | undefined;
  private agentWorker: RunningWorker | undefined;
  private policyWorker: Promise<RunningWorker> | undefined;
  private closed = false;
  private readonly lifetime = new AbortController();
  /** Loaded only when tracing is on, so a process without it never loads OpenTelemetry. */
  private readonly tracing: Promise<Tracing> | undefined;
  private readonly workerSettings: CheckedWorkerSettings;
  private readonly decisionSettings: CheckedDecisionSettings;
  private readonly workers: WorkerAvailability;
  private readonly live: { transport: LiveDeltaTransport; owned: boolean };
  private readonly channels: CheckedChannels | undefined;

  constructor(private readonly options: TollgateOptions = {}) {
    this.agents = new AgentRegistry(Object.values(options.agents ?? {}));
    this.workerSettings = checkWorkerSettings(options.worker);
    this.decisionSettings = checkDecisionSettings(options.decisions);
    this.channels = options.channels ? checkChannels(options.channels) : undefined;
    this.workers = new WorkerAvailability(this.decisionSettings.workerSeenWithinMs);
    this.address = options.temporal?.address ?? process.env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS;
    this.namespace =
      options.temporal?.namespace ?? process.env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE;
    this.taskQueue = options.temporal?.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.live = openLiveTransport(options.liveDeltas, this.namespace);
    // Not client(): shutdown() withdraws through it after the runtime is marked closed.
    this.directory = new AgentDirectory(
      () => this.connectedClient(),
      this.taskQueue,
      this.decisionSettings.workerSeenWithinMs,
    );
    this.grants = new GrantRegistry(() => this.client(), this.taskQueue, this.directory);
    const telemetry = options.telemetry;
    this.tracing = telemetry
      ? import('./telemetry/tracing.js').then((m) => m.createTracing(telemetry))
      : undefined;
    // Bad options surface from startWorker() and client(), not as an unhandled rejection.
    this.tracing?.catch(() => undefined);
  }

  /**
   * Starts the worker that runs this process's agents and publishes them in the agent directory
   * (see `listAgents()`); resolves once it polls. While Temporal
   * cannot be reached it keeps trying for `worker.connectTimeout`, then rejects with
   * `TEMPORAL_UNAVAILABLE`.
   */
  async startWorker(): Promise<void> {
    this.assertOpen();
    if (this.agentWorker) return;
    if (this.agents.size === 0) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        'startWorker() needs agents: pass them as new Tollgate({ agents }).',
      );
    }
    await checkWorkflowSdk();
    const { client, native } = await this.reachTemporal();
    await this.live.transport.open?.('publish');
    const worker = await createAgentWorker({
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
      ...(this.channels ? { channels: this.channels } : {}),
    });
    this.agentWorker = { worker, running: worker.run() };
    this.agentWorker.running.catch((error: unknown) =>
      console.error('[tollgate] agent worker stopped:', error),
    );
    // The worker serves runs already started even when its agents cannot be published.
    await this.directory
      .publish(this.agents.descriptions(), this.workerIdentity)
      .catch((error: unknown) =>
        console.warn(
          `[tollgate] the agents of task queue '${this.taskQueue}' could not be published; new runs of them are refused until a worker publishes them:`,
          error,
        ),
      );
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
    if (!this.agentWorker) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        'workerStopped() needs a started worker: call startWorker() first.',
      );
    }
    const { failure } = await workerEnd(this.agentWorker);
    // A failure while shutting down is part of the shutdown.
    if (this.closed) return;
    const why = failure === undefined ? 'without shutdown()' : `by itself: ${messageOf(failure)}`;
    throw new TollgateError(
      'WORKER_STOPPED',
      `The agent worker on task queue '${this.taskQueue}' stopped ${why}`,
      failure === undefined ? undefined : { cause: failure },
    );
  }

  /** Client, search attributes and worker connection, retried while Temporal is unreachable. */
  private async reachTemporal(): Promise<{ client: Client; native: NativeConnection }> {
    const deadline = Date.now() + this.workerSettings.connectTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      try {
        const client = await this.client();
        await ensureSearchAttributes(client.connection as Connection, this.namespace);
        return { client, native: await this.native() };
      } catch (error) {
        const unreachable = isTemporalUnreachable(error);
        const wait = Math.min(1000 * attempt, 5000, deadline - Date.now());
        if (!unreachable || wait <= 0 || this.closed) {
          throw unreachable ? this.unreachableError(error) : error;
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
        this.assertOpen();
      }
    }
  }

  private unreachableError(cause: unknown): TollgateError {
    const reason = cause instanceof TollgateError && cause.cause ? cause.cause : cause;
    return new TollgateError(
      'TEMPORAL_UNAVAILABLE',
      `Temporal at ${this.address} could not be reached (${messageOf(reason)}); start it, check the address, or set worker.connectTimeout to wait for it.`,
      { cause },
    );
  }

  /**
   * A handle on the agent's runs. The agent's code need not live in this process. With
   * `options.scope`, the handle does only what the scope allows (README "Scopes"), as the HTTP
   * server does for a scoped token: an app can serve tenants in-process.
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
        grants: this.grants,
        holdPolicy: async (runId, policy) => {
          this.policies.register(runId, policy);
          await this.startPolicyWorker();
          return this.policyQueue;
        },
        releasePolicy: (runId) => this.policies.forget(runId),
        decisions: this.decisionSettings,
        workers: this.workers,
      },
      scope,
    );
  }

  /**
   * Decides many waiting calls in one call (README "Batch decisions"). Each is judged by its run
   * as if sent alone (scope, approvers, fingerprint, expiry): one refused call never stops the
   * others. Answers one result per decision, in order, `{ ok: true, decision }` or
   * `{ ok: false, error: { code, message } }`. At most 100 decisions (`INVALID_OPTIONS`).
   */
  async decideMany(
    decisions: BatchDecision[],
    options: DecideManyOptions & GetAgentOptions = {},
  ): Promise<BatchDecisionResult[]> {
    this.assertOpen();
    const { scope } = options;
    const agentOf = (agentId: string) =>
      this.getAgent(agentId, scope === undefined ? undefined : { scope });
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
    if (this.agentWorker?.worker.getState() === 'RUNNING') {
      await this.directory.withdraw(this.agents.ids(), this.workerIdentity).catch(() => undefined);
    }
    const workers = [this.agentWorker, await this.policyWorker?.catch(() => undefined)].filter(
      (w) => w !== undefined,
    );
    for (const { worker } of workers) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    }
    const ends = await Promise.all(workers.map(workerEnd));
    const native = await this.nativeConnection?.catch(() => undefined);
    if (ends.every((end) => end.failure === undefined)) {
      await native?.close();
    } else {
      // A failed worker holds the connection until the core has shut it down, which may never
      // happen (see workerEnd): give it a moment, then leave the rest to the process's exit.
      await Promise.race([
        Promise.allSettled(workers.map((w) => w.running)),
        new Promise((resolve) => setTimeout(resolve, 5000).unref()),
      ]);
      await native?.close().catch(() => undefined);
    }
    await (await this.clientConnection?.catch(() => undefined))?.close();
    await (await this.tracing?.catch(() => undefined))?.shutdown();
    if (this.live.owned) await this.live.transport.close();
  }

  /** The Temporal client of this runtime, connected on first use. */
  client(): Promise<Client> {
    this.assertOpen();
    return this.connectedClient();
  }

  private connectedClient(): Promise<Client> {
    this.clientConnection ??= connectClosable(this.address).catch((error: unknown) => {
      if (!isTemporalUnreachable(error)) throw error;
      // No address in the message: it may travel to HTTP callers.
      throw new TollgateError(
        'TEMPORAL_UNAVAILABLE',
        'Temporal could not be reached. Nothing was changed; try again when the server is back.',
        { cause: error },
      );
    });
    this.clientPromise ??= Promise.all([this.clientConnection, this.tracing]).then(
      ([{ connection }, tracing]) =>
        new Client({
          connection,
          namespace: this.namespace,
          ...(tracing ? { interceptors: tracing.clientInterceptors } : {}),
        }),
      (error: unknown) => {
        // A server that was down must not stay down for this runtime: the next call tries again.
        this.clientPromise = undefined;
        this.clientConnection = undefined;
        throw error;
      },
    );
    return this.clientPromise;
  }

  private native(): Promise<NativeConnection> {
    this.nativeConnection ??= NativeConnection.connect({ address: this.address }).catch(
      (error: unknown) => {
        // Connect again next time: the server may be back.
        this.nativeConnection = undefined;
        throw error;
      },
    );
    return this.nativeConnection;
  }

  private startPolicyWorker(): Promise<RunningWorker> {
    this.policyWorker ??= (async () => {
      const worker = await createPolicyWorker({
        connection: await this.native(),
        namespace: this.namespace,
        taskQueue: this.policyQueue,
        policies: this.policies,
        tracing: await this.tracing,
      });
      const running = worker.run();
      running.catch((error: unknown) => console.error('[tollgate] policy worker stopped:', error));
      return { worker, running };
    })();
    return this.policyWorker;
  }

  private assertOpen(): void {
    if (this.closed)
      throw new TollgateError('INVALID_OPTIONS', 'This Tollgate was shut down; create a new one.');
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
