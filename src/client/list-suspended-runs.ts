import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { SA_KEYS } from '../common/search-attribute-keys.js';
import { TollgateError } from '../common/errors.js';
import type { PendingToolCall, SuspendedRun } from '../common/run-types.js';

export type { SuspendedRun };
import { QUERIES, SEARCH_ATTRIBUTES } from '../common/wire.js';

/** Filters and paging of `listSuspendedRuns` (SPEC §9). */
export interface ListSuspendedRunsOptions {
  threadId?: string;
  resourceId?: string;
  /** Runs started at or after this instant. */
  fromDate?: Date;
  /** Runs started at or before this instant. */
  toDate?: Date;
  /** Runs per page, 1-1000. Default 20. */
  perPage?: number;
  /** Page number, from 0. Default 0. */
  page?: number;
}

export interface SuspendedRuns {
  runs: SuspendedRun[];
  total: number;
}

const MAX_PER_PAGE = 1000;

/**
 * Finds an agent's (without `agentId`, every agent's) waiting runs from Temporal alone: visibility (search attributes) says which
 * runs wait, and each run's `pendingToolCalls` query says on what. Works after any restart.
 */
export async function listSuspendedRuns(
  client: Client,
  agentId: string | undefined,
  options: ListSuspendedRunsOptions = {},
): Promise<SuspendedRuns> {
  const { perPage = 20, page = 0 } = options;
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > MAX_PER_PAGE) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `perPage must be a whole number from 1 to ${MAX_PER_PAGE}, not ${String(perPage)}.`,
    );
  }
  if (!Number.isInteger(page) || page < 0) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `page must be a whole number from 0, not ${String(page)}.`,
    );
  }
  const query = visibilityQuery(agentId, options);
  const { count: total } = await client.workflow.count(query);
  const first = page * perPage;
  const listed: ListedRun[] = [];
  let index = 0;
  for await (const execution of client.workflow.list({
    query,
    pageSize: Math.min(first + perPage, MAX_PER_PAGE),
  })) {
    if (index++ < first) continue;
    listed.push({
      runId: execution.workflowId,
      attributes: execution.typedSearchAttributes,
      startTime: execution.startTime,
    });
    if (listed.length >= perPage) break;
  }
  // Ask the page's runs at once: each answer comes from its own worker-side query.
  const pending = await Promise.all(listed.map(({ runId }) => pendingOf(client, runId)));
  const runs = listed.flatMap((run, at) => {
    const calls = pending[at];
    if (calls === undefined) return [unavailableRun(run)];
    return calls.length > 0 ? [suspendedRun(run.runId, run.attributes, calls)] : [];
  });
  return { runs, total };
}

function visibilityQuery(agentId: string | undefined, options: ListSuspendedRunsOptions): string {
  const { agentId: agent, status, threadId, resourceId } = SEARCH_ATTRIBUTES;
  const clauses = [
    `${status.name} IN ('awaiting-approval', 'suspended')`,
    `ExecutionStatus = 'Running'`,
    // A sub-agent's run is decided through the run at the top, which shows its calls.
    'ParentWorkflowId IS NULL',
  ];
  if (agentId !== undefined) clauses.push(`${agent.name} = ${quote(agentId)}`);
  if (options.threadId !== undefined) clauses.push(`${threadId.name} = ${quote(options.threadId)}`);
  if (options.resourceId !== undefined) {
    clauses.push(`${resourceId.name} = ${quote(options.resourceId)}`);
  }
  if (options.fromDate !== undefined) {
    clauses.push(`StartTime >= ${quote(isoOf(options.fromDate, 'fromDate'))}`);
  }
  if (options.toDate !== undefined) {
    clauses.push(`StartTime <= ${quote(isoOf(options.toDate, 'toDate'))}`);
  }
  return clauses.join(' AND ');
}

function isoOf(date: Date, name: string): string {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new TollgateError('INVALID_OPTIONS', `${name} must be a valid Date.`);
  }
  return date.toISOString();
}

/** A visibility-query string literal: single quotes, with quotes and backslashes escaped. */
export function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** How long a listed run's worker may take to answer for its pending calls, ms. */
const PENDING_QUERY_DEADLINE_MS = 5000;

/** The run's pending calls; `undefined` when no worker answered in time. */
async function pendingOf(client: Client, runId: string): Promise<PendingToolCall[] | undefined> {
  try {
    return await client.connection.withDeadline(Date.now() + PENDING_QUERY_DEADLINE_MS, () =>
      client.workflow.getHandle(runId).query<PendingToolCall[]>(QUERIES.pendingToolCalls),
    );
  } catch (error) {
    // Gone since the listing: it no longer waits. Anything else: no worker answered.
    return error instanceof WorkflowNotFoundError ? [] : undefined;
  }
}

interface ListedRun {
  runId: string;
  attributes: TypedSearchAttributes;
  startTime: Date;
}

/** A waiting run whose worker did not answer: listed from its search attributes alone. */
function unavailableRun(run: ListedRun): SuspendedRun {
  return {
    ...suspendedRun(run.runId, run.attributes, []),
    suspendedAt: run.startTime.toISOString(),
    unavailable: true,
  };
}

function suspendedRun(
  runId: string,
  attributes: TypedSearchAttributes,
  pending: PendingToolCall[],
): SuspendedRun {
  const threadId = attributes.get(SA_KEYS.threadId);
  const resourceId = attributes.get(SA_KEYS.resourceId);
  return {
    runId,
    status: 'suspended',
    agentId: attributes.get(SA_KEYS.agentId) ?? '',
    ...(threadId !== undefined ? { threadId } : {}),
    ...(resourceId !== undefined ? { resourceId } : {}),
    suspendedAt: pending.map((call) => call.requestedAt).sort()[0] ?? '',
    toolCalls: pending,
  };
}
