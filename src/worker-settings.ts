import type { WorkerOptions } from '@temporalio/worker';
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
}

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
  /** ms; 0 means a single attempt. */
  connectTimeoutMs: number;
}

const KNOWN = new Set<string>([
  'maxCachedWorkflows',
  'maxConcurrentWorkflowTaskExecutions',
  'maxConcurrentActivityTaskExecutions',
  'shutdownGraceTime',
  'connectTimeout',
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
  return { tuning, connectTimeoutMs };
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
