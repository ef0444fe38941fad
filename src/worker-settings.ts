import type { WorkerDeploymentOptions, WorkerOptions } from '@temporalio/worker';
import { parseDuration } from './common/approval-rules.js';
import { TollgateError } from './common/errors.js';

/** How this process's agent worker uses memory, concurrency and time. Every field is optional. */
export interface WorkerSettings {
  /**
   * Runs kept in memory between their workflow tasks (Temporal's sticky cache). Bounds the
   * worker's memory however many runs are parked; a run evicted from the cache is replayed from
   * its history when it moves again. `0` turns the cache off; otherwise at least 2.
   * Default: `DEFAULT_CACHED_RUNS` (200), or `maxConcurrentWorkflowTaskExecutions` when that is
   * set higher — sized for the runs that move at once, so runs that wait on a person fall out
   * first (least recently used). Temporal's own default (about 2 300 runs with a 4 GiB heap)
   * would let parked runs hold the worker's memory.
   */
  maxCachedWorkflows?: number;
  /**
   * Workflow tasks handled at once. At least 2 while the cache is on, and not more than
   * `maxCachedWorkflows`. Default: Temporal's (40).
   */
  maxConcurrentWorkflowTaskExecutions?: number;
  /** Model steps and tool calls executed at once. Default: Temporal's (100). */
  maxConcurrentActivityTaskExecutions?: number;
  /**
   * On `shutdown()`, how long running model steps and tool calls may go on before they are
   * cancelled (they are retried elsewhere). A number of ms or `'30 seconds'`. Default: Temporal's
   * (no limit: activities finish).
   */
  shutdownGraceTime?: number | string;
  /**
   * How long `startWorker()` keeps trying to reach Temporal (a server still starting, a deploy)
   * before it rejects with `TEMPORAL_UNAVAILABLE`. A number of ms or `'2 minutes'`.
   * Default: one attempt, failing within about 10 s.
   */
  connectTimeout?: number | string;
  /**
   * The Temporal Worker Deployment version this worker belongs to (docs/deploying.md): its
   * deployment's `name` (the same for every release of the application) and this release's
   * `buildId`. Off by default: then every worker of the task queue takes any run.
   */
  deployment?: WorkerDeployment;
  /**
   * With `deployment`, required: whether a run started on this build finishes on it (`'pinned'`:
   * old builds keep polling until their runs end or are moved, and no run ever replays on other
   * code) or moves to the current build at its next workflow task (`'auto-upgrade'`: builds retire
   * at once, and every new build must replay the old runs, which the replay gate checks).
   */
  versioning?: Versioning;
}

/** A release of the application, as Temporal's Worker Deployments know it. */
export interface WorkerDeployment {
  /** The deployment: letters, digits, `-` and `_`; the same across releases. */
  name: string;
  /** This release: letters, digits, `-`, `_` and `.`, e.g. a commit id or `2026.12.05-1`. */
  buildId: string;
}

export type Versioning = 'pinned' | 'auto-upgrade';

/**
 * Runs a worker caches unless told otherwise: room for the default 40 workflow tasks at once
 * and the runs between two of their steps, while a worker holding thousands of parked runs stays
 * near its idle footprint (docs/parked-runs.md has the figures).
 */
export const DEFAULT_CACHED_RUNS = 200;

/** The Temporal worker options the settings become, checked. */
export type WorkerTuning = Pick<
  WorkerOptions,
  | 'maxCachedWorkflows'
  | 'maxConcurrentWorkflowTaskExecutions'
  | 'maxConcurrentActivityTaskExecutions'
  | 'shutdownGraceTime'
>;

export interface CheckedWorkerSettings {
  tuning: WorkerTuning;
  /** Set with `deployment`: every worker of the process joins the version. */
  deployment?: WorkerDeploymentOptions;
  /** ms; 0 means a single attempt. */
  connectTimeoutMs: number;
}

const KNOWN = new Set<string>([
  'maxCachedWorkflows',
  'maxConcurrentWorkflowTaskExecutions',
  'maxConcurrentActivityTaskExecutions',
  'shutdownGraceTime',
  'connectTimeout',
  'deployment',
  'versioning',
]);

/** Checks `new Tollgate({ worker })`; throws `INVALID_OPTIONS` naming the field. */
export function checkWorkerSettings(settings: WorkerSettings | undefined): CheckedWorkerSettings {
  if (settings === undefined) {
    return { tuning: { maxCachedWorkflows: DEFAULT_CACHED_RUNS }, connectTimeoutMs: 0 };
  }
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
    throw invalid(`worker must be an object of worker settings, not ${JSON.stringify(settings)}.`);
  }
  const unknown = Object.keys(settings).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) {
    throw invalid(`worker.${unknown[0]} is not a worker setting; known: ${[...KNOWN].join(', ')}.`);
  }
  const cache = wholeNumber(settings, 'maxCachedWorkflows', 0);
  if (cache === 1) {
    throw invalid('worker.maxCachedWorkflows must be 0 (no cache) or at least 2, not 1.');
  }
  const workflowTasks = wholeNumber(settings, 'maxConcurrentWorkflowTaskExecutions', 1);
  if (workflowTasks !== undefined && cache !== 0) {
    if (workflowTasks < 2) {
      throw invalid(
        'worker.maxConcurrentWorkflowTaskExecutions must be at least 2 while the workflow cache is on (set maxCachedWorkflows: 0 to turn it off).',
      );
    }
    if (cache !== undefined && workflowTasks > cache) {
      throw invalid(
        `worker.maxConcurrentWorkflowTaskExecutions (${workflowTasks}) cannot exceed worker.maxCachedWorkflows (${cache}).`,
      );
    }
  }
  const activities = wholeNumber(settings, 'maxConcurrentActivityTaskExecutions', 1);
  const tuning: WorkerTuning = {
    maxCachedWorkflows: cache ?? Math.max(DEFAULT_CACHED_RUNS, workflowTasks ?? 0),
  };
  if (workflowTasks !== undefined) tuning.maxConcurrentWorkflowTaskExecutions = workflowTasks;
  if (activities !== undefined) tuning.maxConcurrentActivityTaskExecutions = activities;
  if (settings.shutdownGraceTime !== undefined) {
    tuning.shutdownGraceTime = parseDuration(
      settings.shutdownGraceTime,
      'worker.shutdownGraceTime',
    );
  }
  const connectTimeoutMs =
    settings.connectTimeout === undefined
      ? 0
      : parseDuration(settings.connectTimeout, 'worker.connectTimeout');
  const deployment = checkDeployment(settings);
  return { tuning, connectTimeoutMs, ...(deployment ? { deployment } : {}) };
}

const DEPLOYMENT_NAME = /^[A-Za-z0-9_-]{1,200}$/;
const BUILD_ID = /^[A-Za-z0-9_.-]{1,200}$/;
const VERSIONING: Record<Versioning, 'PINNED' | 'AUTO_UPGRADE'> = {
  pinned: 'PINNED',
  'auto-upgrade': 'AUTO_UPGRADE',
};

function checkDeployment(settings: WorkerSettings): WorkerDeploymentOptions | undefined {
  const { deployment, versioning } = settings;
  if (deployment === undefined) {
    if (versioning !== undefined) {
      throw invalid('worker.versioning needs worker.deployment: { name, buildId }.');
    }
    return undefined;
  }
  if (typeof deployment !== 'object' || deployment === null || Array.isArray(deployment)) {
    throw invalid(`worker.deployment must be { name, buildId }, not ${JSON.stringify(deployment)}.`);
  }
  const { name, buildId } = deployment;
  if (typeof name !== 'string' || !DEPLOYMENT_NAME.test(name)) {
    throw invalid(
      `worker.deployment.name must be 1-200 letters, digits, '-' or '_', not ${JSON.stringify(name)}.`,
    );
  }
  if (typeof buildId !== 'string' || !BUILD_ID.test(buildId)) {
    throw invalid(
      `worker.deployment.buildId must be 1-200 letters, digits, '-', '_' or '.', not ${JSON.stringify(buildId)}.`,
    );
  }
  if (versioning === undefined || !Object.hasOwn(VERSIONING, versioning)) {
    throw invalid(
      `worker.versioning must be 'pinned' (a run finishes on the build it started on) or 'auto-upgrade' (a run moves to the current build), not ${JSON.stringify(versioning)}.`,
    );
  }
  return {
    version: { deploymentName: name, buildId },
    useWorkerVersioning: true,
    defaultVersioningBehavior: VERSIONING[versioning],
  };
}

function wholeNumber(
  settings: WorkerSettings,
  field: keyof WorkerSettings,
  min: number,
): number | undefined {
  const value = settings[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw invalid(
      `worker.${field} must be a whole number of at least ${min}, not ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

function invalid(message: string): TollgateError {
  return new TollgateError('INVALID_OPTIONS', message);
}
