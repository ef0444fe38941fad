import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { SA_KEYS } from '../common/search-attribute-keys.js';
import { TollgateError } from '../common/errors.js';
import { instantProblem } from '../common/limits.js';
import { exactLimits, maySeeRun, type ExactLimits, type Scope } from '../common/scope.js';
import type { PendingToolCall, SuspendedRun } from '../common/run-types.js';

export type { SuspendedRun };
import { pendingToolCallsQuery } from '../common/messages.js';
import { SEARCH_ATTRIBUTES } from '../common/wire.js';
import { isTemporalUnreachable } from './errors.js';
import { checkId } from './run-options.js';

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
 * With a `scope`, only runs it may see are listed and counted: exact agent and resource lists
 * go into the visibility query; patterns are matched against every listed run.
 */
export async function listSuspendedRuns(
  client: Client,
  agentId: string | undefined,
  options: ListSuspendedRunsOptions = {},
  scope?: Scope,
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
  for (const field of ['threadId', 'resourceId'] as const) {
    if (options[field] !== undefined) checkId(options[field], field);
  }
  if (agentId !== undefined) checkId(agentId, 'agentId');
  const limits = exactLimits(scope);
  const query = visibilityQuery(agentId, options, limits);
  let found: { total: number; listed: ListedRun[] };
  try {
    found = await listPage(client, query, { first: page * perPage, perPage, limits, scope });
  } catch (error) {
    if (!isTemporalUnreachable(error)) throw error;
    throw new TollgateError(
      'TEMPORAL_UNAVAILABLE',
      'Temporal could not be reached to list the waiting runs; try again when the server is back.',
      { cause: error },
    );
  }
  const { total, listed } = found;
  // Ask the page's runs at once: each answer comes from its own worker-side query.
  const pending = await Promise.all(listed.map(({ runId }) => pendingOf(client, runId)));
  const runs = listed.flatMap((run, at) => {
    const calls = pending[at];
    if (calls === undefined) return [unavailableRun(run)];
    return calls.length > 0 ? [suspendedRun(run.runId, run.attributes, calls)] : [];
  });
  return { runs, total };
}

/**
 * The runs from index `first` on, `perPage` at most, in visibility's order, and how many match.
 * With scope patterns, the count must come from the runs that match them: every one is read.
 */
export async function listPage(
  client: Client,
  query: string,
  paging: { first: number; perPage: number; limits: ExactLimits; scope: Scope | undefined },
): Promise<{ total: number; listed: ListedRun[] }> {
  const { first, perPage, limits, scope } = paging;
  let total = limits.patterns ? 0 : (await client.workflow.count(query)).count;
  const listed: ListedRun[] = [];
  let index = 0;
  for await (const execution of client.workflow.list({
    query,
    pageSize: limits.patterns ? MAX_PER_PAGE : Math.min(first + perPage, MAX_PER_PAGE),
  })) {
    const attributes = execution.typedSearchAttributes;
    if (limits.patterns) {
      const run = {
        agentId: attributes.get(SA_KEYS.agentId),
        resourceId: attributes.get(SA_KEYS.resourceId),
      };
      if (!maySeeRun(scope, run)) continue;
      total++;
    }
    if (index++ < first || listed.length >= perPage) continue;
    listed.push({ runId: execution.workflowId, attributes, startTime: execution.startTime });
    if (listed.length >= perPage && !limits.patterns) break;
  }
  return { total, listed };
}

function visibilityQuery(
  agentId: string | undefined,
  options: ListSuspendedRunsOptions,
  limits: ExactLimits,
): string {
  const { status, threadId, resourceId } = SEARCH_ATTRIBUTES;
  const clauses = [
    `${status.name} IN ('awaiting-approval', 'suspended')`,
    `ExecutionStatus = 'Running'`,
    // A sub-agent's run is decided through the run at the top, which shows its calls.
    'ParentWorkflowId IS NULL',
  ];
  clauses.push(...scopeClauses(agentId, limits));
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

/** Visibility clauses for runs of `agentId` (any agent without it) that `limits` let be seen. */
export function scopeClauses(agentId: string | undefined, limits: ExactLimits): string[] {
  const { agentId: agent, resourceId } = SEARCH_ATTRIBUTES;
  const clauses: string[] = [];
  if (agentId !== undefined) clauses.push(`${agent.name} = ${quote(agentId)}`);
  if (limits.agents) clauses.push(`${agent.name} IN (${limits.agents.map(quote).join(', ')})`);
  if (limits.resources) {
    clauses.push(`${resourceId.name} IN (${limits.resources.map(quote).join(', ')})`);
  } else if (limits.needsResource) {
    clauses.push(`${resourceId.name} IS NOT NULL`);
  }
  return clauses;
}

function isoOf(date: Date, name: string): string {
  const problem = instantProblem(date, name);
  if (problem) throw new TollgateError('INVALID_OPTIONS', problem);
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
      client.workflow.getHandle(runId).query(pendingToolCallsQuery),
    );
  } catch (error) {
    // Gone since the listing: it no longer waits. Anything else: no worker answered.
    return error instanceof WorkflowNotFoundError ? [] : undefined;
  }
}

export interface ListedRun {
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
