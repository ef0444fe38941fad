/**
 * `ListTasks` (docs/a2a.md): the A2A tasks of an agent the caller's scope may see, in one context
 * or all, newest first, a page at a time. Found from Temporal's visibility alone (a task's id is
 * its run id, which carries its context), each read back from its run like `GetTask`.
 */
import { type ListTasksRequest, type ListTasksResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@temporalio/client';
import { TollgateError } from '../../common/errors.js';
import { exactLimits, type Scope } from '../../common/scope.js';
import {
  listPage,
  quote,
  scopeClauses,
  type ListedRun,
} from '../../temporal-client/list-suspended-runs.js';
import type { RunStatus } from '../../temporal-client/run-status.js';
import { ScopeGuard } from '../../temporal-client/scope-guard.js';
import { checkContextId, RUN_PREFIX, taskOf } from './a2a-task.js';

/** Tasks per page without `pageSize`, and at most. */
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;
/** The tasks a listing looks through, newest first; older ones are not listed. */
const MAX_LISTED = 1000;

/** The page `params` asks for, of `agentId`'s tasks `scope` may see; `read` reads each run. */
export async function listTasks(
  client: Client,
  agentId: string,
  scope: Scope | undefined,
  params: ListTasksRequest,
  read: (runId: string) => Promise<RunStatus>,
): Promise<ListTasksResponse> {
  new ScopeGuard(agentId, scope).request('read');
  const { first, pageSize } = pagingOf(params);
  checkFilters(params);
  if (params.contextId) checkContextId(params.contextId);
  const prefix = params.contextId ? `${RUN_PREFIX}${params.contextId}.` : RUN_PREFIX;
  const limits = exactLimits(scope);
  const query = [
    `WorkflowId STARTS_WITH ${quote(prefix)}`,
    'ParentWorkflowId IS NULL',
    ...scopeClauses(agentId, limits),
  ].join(' AND ');
  const found = await listPage(client, query, { first: 0, perPage: MAX_LISTED, limits, scope });
  // Visibility's own order is not by start time: sort the runs it found, newest first.
  const runs = found.listed.sort(newestFirst);
  const page = runs.slice(first, first + pageSize);
  const tasks = await Promise.all(page.map((run) => taskOfListed(agentId, run, read)));
  const next = first + page.length;
  return {
    tasks: params.includeArtifacts ? tasks : tasks.map((task) => ({ ...task, artifacts: [] })),
    nextPageToken: next < runs.length ? String(next) : '',
    pageSize,
    totalSize: runs.length,
  };
}

function newestFirst(a: ListedRun, b: ListedRun): number {
  return b.startTime.getTime() - a.startTime.getTime() || a.runId.localeCompare(b.runId);
}

/** A listed run as a task; one whose worker is away is listed as working, not as an error. */
async function taskOfListed(
  agentId: string,
  run: ListedRun,
  read: (runId: string) => Promise<RunStatus>,
): Promise<Task> {
  try {
    return taskOf(agentId, await read(run.runId));
  } catch (error) {
    if (!(error instanceof TollgateError && error.code === 'WORKER_UNAVAILABLE')) throw error;
    return taskOf(agentId, { runId: run.runId, state: 'running', pending: [] });
  }
}

function pagingOf(params: ListTasksRequest): { first: number; pageSize: number } {
  const pageSize = params.pageSize || DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw invalid(`pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE}, not ${pageSize}`);
  }
  const token = params.pageToken || '0';
  if (!/^\d{1,4}$/.test(token)) {
    throw invalid(`pageToken ${JSON.stringify(token.slice(0, 40))} is not one this server gave`);
  }
  return { first: Number(token), pageSize };
}

/** Filters Tollgate does not apply are refused rather than ignored: the answer would lie. */
function checkFilters(params: ListTasksRequest): void {
  // TASK_STATE_UNSPECIFIED (0) is no filter.
  if (params.status) {
    throw invalid('filtering by status is not supported; filter the listed tasks instead');
  }
  if (params.statusTimestampAfter) {
    throw invalid('statusTimestampAfter is not supported; leave it out');
  }
}

function invalid(problem: string): TollgateError {
  return new TollgateError('INVALID_OPTIONS', `This task listing cannot be answered: ${problem}.`);
}
